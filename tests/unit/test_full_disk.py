"""A full disk (or any failed write) in the middle of an append is one line, and nothing of the
append stands (DESIGN §5 all or nothing, §6 "a full disk is an error, not a leftover"): the
writer cuts the log back to where it ended. Erasure's own full-disk cases are in
test_erasure_guarantees.py."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from logtools import failing_write, fill
from storegen import entry, write_store
from inspector import cli
from inspector.store import registry
from inspector.store.actions import Request
from inspector.store.errors import WriteFailed
from inspector.store.ingest import ingest
from inspector.store.load import Store
from inspector.store.logfile import store_paths

ROOT = Path(__file__).resolve().parents[2]
T = "2025-01-01T00:00:00Z"


def feed_of(path: Path, n: int, pad: int = 100) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            line = entry(f"N{i}", "svc", f"k{i}", f"value {i} " + "y" * pad)
            line.pop("status")
            f.write(json.dumps(line) + "\n")
    return path


def inspector(*args, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, timeout=300, env={**os.environ, **env})


@pytest.mark.parametrize("after", [0, 1, 3], ids=["first-chunk", "second-chunk", "fourth-chunk"])
def test_a_failed_write_in_the_middle_of_an_ingest_leaves_the_log_as_it_was(tmp_path, monkeypatch,
                                                                            after):
    root = write_store(tmp_path / "s", [(T, "write", entry("A", "svc", "a", "kept"))])
    before = (root / "events.jsonl").read_bytes()
    feed = feed_of(tmp_path / "feed.jsonl", 2_000)        # about 700 KB: eleven 64 KiB chunks
    calls = failing_write(monkeypatch, "events.jsonl", after)
    with pytest.raises(WriteFailed) as caught:
        ingest(store_paths(root), feed, actor="agent:1")
    monkeypatch.undo()
    assert calls[0] == after + 1
    assert str(caught.value) == (f"cannot write to {root / 'events.jsonl'}: No space left on device; "
                                 "nothing of it was written: free some space and run the command again")
    assert caught.value.exit_code == 2
    assert (root / "events.jsonl").read_bytes() == before
    again = ingest(store_paths(root), feed, actor="agent:1")
    assert (len(again.written), again.unchanged) == (2_000, [])


@pytest.mark.parametrize("failures, says", [
    (1, "nothing of it was written"),
    (2, "cutting the log back failed too, so its whole lines may stand (readers ignore an unfinished "
        "batch; the next write moves a torn end to torn/)")], ids=["fsync", "fsync-and-cut-back"])
def test_a_failed_fsync_of_a_cascade_leaves_nothing_a_reader_applies(tmp_path, monkeypatch,
                                                                     failures, says):
    root = write_store(tmp_path / "s", [(T, "write", entry("R", "svc", "r", "r"))] + [
        (T, "write", entry(f"S{i}", "svc", f"s{i}", f"s{i}", kind="summary", justification=["R"]))
        for i in range(2_000)])
    before = (root / "events.jsonl").read_bytes()
    store = Store(root, warn=False)
    reviewed = registry.plan(store, Request("quarantine", "bad tool result", "alice", ("R",)))
    assert len(reviewed.affected) == 2_001
    real, failed = os.fsync, [0]

    def fsync(fd):
        if os.readlink(f"/proc/self/fd/{fd}").endswith("events.jsonl") and failed[0] < failures:
            failed[0] += 1
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real(fd)
    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(WriteFailed) as caught:
        registry.apply(store, reviewed)
    monkeypatch.undo()
    store.con.close()
    assert failed[0] == failures
    assert str(caught.value) == (f"cannot write to {root / 'events.jsonl'}: Input/output error; {says}: "
                                 "fix that and run the command again")
    assert (root / "events.jsonl").read_bytes() == before
    assert Store(root, warn=False).con.execute(
        "SELECT count(*) FROM entries WHERE status = 'quarantined'").fetchone() == (0,)


def test_a_20000_entry_ingest_on_a_full_disk_is_one_line_and_writes_nothing(small_disk, tmp_path):
    root = small_disk / "s"
    assert inspector("init", root).returncode == 0
    feed = feed_of(tmp_path / "feed.jsonl", 20_000)       # about 6 MB on a 2 MB disk
    result = inspector("ingest", root, feed)
    assert result.returncode == 2, result.stderr
    assert result.stderr == (f"error: cannot write to {root / 'events.jsonl'}: No space left on device; "
                             "nothing of it was written: free some space and run the command again\n")
    assert (root / "events.jsonl").read_bytes() == b""
    small = feed_of(tmp_path / "small.jsonl", 3)
    assert inspector("ingest", root, small).stderr == "written 3, held 0, updated 0, unchanged 0, rejected lines 0\n"


def test_no_room_to_set_a_torn_end_aside_is_one_line_and_writes_nothing(small_disk):
    root = write_store(small_disk / "s", [(T, "write", entry("A", "svc", "a", "v"))])
    no_view = {"INSPECTOR_VIEW_MIN_BYTES": str(1 << 30)}      # its megabyte would fill this disk
    with (root / "events.jsonl").open("ab") as f:
        f.write(b'{"seq":2,"torn":"' + b"t" * 200_000)             # a crashed writer's end
    before = (root / "events.jsonl").read_bytes()
    filler = fill(small_disk, leave=100_000)
    result = inspector("quarantine", root, "A", "--reason", "contain", "--operator", "ops", **no_view)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"error: cannot write to {root}: setting an unfinished write aside failed (No space left on "
        "device); nothing was written: free some space and run the command again")
    assert "Traceback" not in result.stderr
    assert (root / "events.jsonl").read_bytes() == before
    assert not (root / "torn").exists() or list((root / "torn").iterdir()) == []
    filler.unlink()
    again = inspector("quarantine", root, "A", "--reason", "contain", "--operator", "ops", **no_view)
    assert again.returncode == 0, again.stderr
    assert [p.name for p in (root / "torn").iterdir()] == [str(len(before) - 200_017)]


def test_an_os_error_nobody_foresaw_is_one_line_not_a_traceback(monkeypatch, capsys):
    def app(standalone_mode=True):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), "/srv/store/events.jsonl")
    monkeypatch.setattr(cli, "load", lambda command=None: app)
    monkeypatch.setattr("sys.argv", ["inspector", "ingest", "/srv/store", "-"])
    with pytest.raises(SystemExit) as caught:
        cli.main()
    assert caught.value.code == 2
    assert capsys.readouterr().err == ("error: /srv/store/events.jsonl: Permission denied; nothing more was "
                                       "done: fix that and run `inspector audit --verify /srv/store` before "
                                       "writing to the store again\n")
