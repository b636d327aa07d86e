"""The command line's error paths: an operating-system error, a path that is not what a store
needs, a value that names nothing. Each is one line naming the path (and the real store, never
the word STORE) and what to do; the exit code is 2; nothing is written."""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from clirun import inspector  # noqa: E402


def log_bytes(store: Path) -> bytes:
    return (store / "events.jsonl").read_bytes()


def test_report_out_empty_names_no_file(sample):
    store = sample("branch-contamination")
    result = inspector("report", store, "--out", "")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == ("error: --out '' names no file: give the path of a new file, or "
                             "leave --out out to write under the store's reports/\n")
    assert not (store / "reports").exists()


def test_report_out_where_no_file_can_be_made_names_that_path(sample):
    # It said "x.html: No such file or directory … run `inspector audit --verify STORE`".
    result = inspector("report", sample("branch-contamination"), "--out", "/proc/x.html")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == ("error: --out /proc/x.html: cannot write it there: No such file or "
                             "directory; choose another file (no report was written)\n")


def test_report_into_a_store_that_cannot_be_written_says_where(sample, monkeypatch):
    # A read-only store (root ignores the mode bits, so the file system's answer is simulated).
    from inspector.store import reports

    def read_only(directory, name, data):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), name)
    monkeypatch.setattr(reports, "write_new", read_only)
    store = sample("branch-contamination")
    result = inspector("report", store)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (f"error: {store / 'reports'}: cannot write the report there: "
                             "Read-only file system; fix that or give --out FILE elsewhere (no "
                             "report was written)\n")


def test_init_on_a_dangling_link_says_where_it_points(tmp_path):
    link = tmp_path / "store"
    link.symlink_to(tmp_path / "nowhere" / "x")
    result = inspector("init", link)
    assert result.code == 2
    assert result.stderr == (f"error: {link} is a symbolic link to {tmp_path / 'nowhere' / 'x'}, "
                             "which does not exist; give the store's real path, or create that "
                             "directory first\n")
    assert not (tmp_path / "nowhere").exists()


def test_init_under_a_file_names_the_path_and_no_audit(tmp_path):
    (tmp_path / "afile").write_text("")
    result = inspector("init", tmp_path / "afile" / "store")
    assert result.code == 2
    assert result.stderr == (f"error: {tmp_path / 'afile' / 'store'}: Not a directory; the store "
                             "was not created there: fix that or choose another path\n")


def test_a_lock_that_is_a_directory_is_named_and_nothing_is_written(sample):
    store = sample("branch-contamination")
    before = log_bytes(store)
    (store / ".lock").mkdir()
    result = inspector("quarantine", store, "M1", "--reason", "INC-7", "--operator", "alice")
    assert result.code == 2
    assert result.stderr == (f"error: {store / '.lock'} is not a regular file, so no writer can "
                             "lock the store: remove it (a writer makes a new one); nothing was "
                             "written\n")
    assert log_bytes(store) == before


def test_revert_without_a_batch_shows_the_positional_form(sample):
    result = inspector("revert", sample("branch-contamination"), "", "--reason", "x")
    assert result.code == 2
    assert result.stderr == ("error: revert needs the batch to undo: `inspector revert STORE "
                             "BATCH --reason R` (`inspector audit --log` lists the batch ids)\n")


def test_a_log_that_is_a_fifo_is_not_called_missing(sample):
    store = sample("branch-contamination")
    (store / "events.jsonl").unlink()
    os.mkfifo(store / "events.jsonl")
    result = inspector("beliefs", store, subprocess_run=True)
    assert result.code == 2
    assert result.stderr == (f"error: {store / 'events.jsonl'} is not a regular file (a FIFO, a "
                             "device or a directory); a store's log must be one: put the real "
                             "events.jsonl back\n")


def test_an_os_error_without_a_path_names_the_real_store(sample, monkeypatch):
    # The line used to print "run `inspector audit --verify STORE`", literally, and no path.
    from inspector.store import ingest as ingest_mod

    def failing(*args, **kw):
        raise OSError(errno.EIO, os.strerror(errno.EIO))
    monkeypatch.setattr(ingest_mod, "ingest", failing)
    store = sample("moved-city")
    feed = store.parent / "feed.jsonl"
    feed.write_text("")
    result = inspector("ingest", store, feed)
    assert result.code == 2
    assert result.stderr == (f"error: {store}: Input/output error; nothing more was done: fix "
                             f"that and run `inspector audit --verify {store}` before writing to "
                             "the store again\n")


def test_an_os_error_of_a_read_command_does_not_call_for_an_audit(sample, monkeypatch):
    from inspector.cli import read

    def failing(*args, **kw):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), "/x/events.jsonl")
    monkeypatch.setattr(read, "open_store", failing)
    result = inspector("beliefs", sample("moved-city"))
    assert result.code == 2
    assert result.stderr == ("error: /x/events.jsonl: Permission denied; fix that and run the "
                             "command again\n")


def test_a_writer_waiting_for_the_lock_says_so_once_then_writes(sample):
    # It waited silently, for ever as far as the person could tell.
    store = sample("branch-contamination")
    events_before = len(log_bytes(store).splitlines())
    fd = os.open(store / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)              # another writer (its own open file description)
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "quarantine", str(store), "M1",
                             "--no-cascade", "--reason", "INC-7", "--operator", "alice"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(3.0)
        assert proc.poll() is None              # still waiting, not failed
    finally:
        os.close(fd)                            # the other writer is done
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert err == f"waiting for {store / '.lock'} (another writer holds it)…\n"
    assert len(log_bytes(store).splitlines()) == events_before + 1
