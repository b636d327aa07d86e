"""The command line's error paths: an operating-system error, a path that is not what a store
needs, a value that names nothing. Each is one line naming the path (and the real store, never
the word STORE) and what to do; the exit code is 2; nothing is written."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

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
        # what it says when it finds the lock held, however long its start takes (a fixed 3 s
        # wait released the lock before a slow machine's command had reached it)
        ready, _, _ = select.select([proc.stderr], [], [], 60)
        said = proc.stderr.readline() if ready else ""
        assert proc.poll() is None              # still waiting, not failed
    finally:
        os.close(fd)                            # the other writer is done
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert said == f"waiting for {store / '.lock'} (another writer holds it)…\n"
    assert err == ""                            # once
    assert len(log_bytes(store).splitlines()) == events_before + 1


# -- ctrl-c: exit 130 and what is true -------------------------------------------------------

# Runs the command in a child whose crash hook sends this very process SIGINT at one stage of
# a write, as a terminal's ctrl-c would land there.
SIGINT_AT = """
import os, signal, sys
from inspector.store import files
stage = sys.argv.pop(1)
def hook(name):
    if name == stage:
        os.kill(os.getpid(), signal.SIGINT)
files.crash_hook = hook
sys.argv[0] = "inspector"
from inspector.cli import main
main()
"""


def interrupted_at(stage: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SIGINT_AT, stage, *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_ctrl_c_during_an_erasure_waits_for_it_and_names_the_certificate(sample):
    # It was a traceback ("RuntimeError: Query interrupted"), exit 1, and no certificate id.
    store = sample("moved-city")
    result = interrupted_at("erase:after_pending", "erase", store, "--subject", "user:42",
                            "--reason", "DSR-1", "--operator", "alice")
    certificates = sorted(p.name for p in (store / "certificates").iterdir())
    assert (result.returncode, result.stdout, len(certificates)) == (130, "", 1)
    cert = certificates[0].removesuffix(".json")
    assert result.stderr == (f"interrupted after the erasure was written: certificate {cert} "
                             f"({store / 'certificates' / certificates[0]}); `inspector audit "
                             f"--log {store}` lists its events\n")
    verify = inspector("audit", store, "--verify", "--json")
    assert (verify.code, verify.json["ok"], verify.json["events"]) == (0, True, 12)   # 6 + 6 erase


def test_ctrl_c_during_an_append_waits_for_it_and_names_the_batch(sample):
    store = sample("branch-contamination")
    before = len(log_bytes(store).splitlines())
    result = interrupted_at("before_write", "quarantine", store, "M1", "--no-cascade",
                            "--reason", "INC-7", "--operator", "alice")
    lines = log_bytes(store).splitlines()
    assert (result.returncode, result.stdout, len(lines)) == (130, "", before + 1)
    batch = json.loads(lines[-1])["batch"]
    assert result.stderr == (f"interrupted after batch {batch} (1 events) was written; "
                             f"`inspector audit --log {store}` lists it\n")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_or_sighup_during_an_ingest_ends_it_after_the_whole_feed_is_written(sample, tmp_path,
                                                                                     signum):
    """A service manager's SIGTERM or a closed terminal's SIGHUP between two chunks of a feed's
    one append: they left the first chunks' events standing (7,371 of 60,000 in the probe);
    held back, they end the process once the whole feed is written."""
    store = sample("moved-city")
    before = len(log_bytes(store).splitlines())
    feed = tmp_path / "feed.jsonl"
    feed.write_text("".join(json.dumps({
        "id": f"F{i}", "entity": f"user:{i % 7}", "attribute": "note", "value": "v" * 300,
        "kind": "observation", "source": "system:crm", "observed_at": "2025-01-01T00:00:00Z"}) + "\n"
        for i in range(400)))                                  # 400 events: several write chunks
    code = SIGINT_AT.replace("signal.SIGINT", f"signal.{signum.name}")
    result = subprocess.run([sys.executable, "-c", code, "mid_write", "ingest", str(store), str(feed)],
                            capture_output=True, text=True, timeout=120)
    lines = log_bytes(store).splitlines()
    assert (result.returncode, len(lines)) == (-signum, before + 400)
    assert json.loads(lines[-1])["memory_id"] == "F399"
    verify = inspector("audit", store, "--verify", "--json")
    assert (verify.code, verify.json["ok"], verify.json["events"]) == (0, True, before + 400)


def test_ctrl_c_before_anything_is_written_says_so(sample):
    store = sample("branch-contamination")
    before = log_bytes(store)
    code = ("import os, signal\nfrom inspector.store import erasure\nplan = erasure.plan_erasure\n"
            "def stop(*a, **k):\n    os.kill(os.getpid(), signal.SIGINT)\n    return plan(*a, **k)\n"
            "erasure.plan_erasure = stop\n")
    stopped = subprocess.run([sys.executable, "-c", code + SIGINT_AT, "none", "erase", str(store),
                              "--subject", "agent:427", "--reason", "DSR-1", "--operator", "alice"],
                             capture_output=True, text=True, timeout=120)
    assert (stopped.returncode, stopped.stdout, stopped.stderr) == (
        130, "", "interrupted; nothing was written\n")
    assert log_bytes(store) == before and not (store / "certificates").exists()


def test_a_query_duckdb_interrupted_is_one_line_and_130(sample, monkeypatch):
    from inspector.cli import read

    def interrupted(*args, **kw):
        raise RuntimeError("Query interrupted")     # what DuckDB 2.0 raises on SIGINT
    monkeypatch.setattr(read, "open_store", interrupted)
    result = inspector("beliefs", sample("moved-city"))
    assert (result.code, result.stdout, result.stderr) == (130, "", "interrupted; nothing was written\n")


# -- memory: one line, exit 2 (never 1, which is a failed check) -------------------------------

def test_duckdb_out_of_memory_in_scan_fail_on_is_exit_2_not_1(sample, monkeypatch):
    import duckdb
    from inspector.cli import read

    def out_of_memory(*args, **kw):
        raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate data of size 16.0 MiB")
    monkeypatch.setattr(read, "open_store", out_of_memory)
    result = inspector("scan", sample("moved-city"), "--fail-on", "high")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == ("error: out of memory; nothing more was done: run the command again "
                             "with more memory (or a smaller input)\n")


def test_memory_error_in_ingest_is_one_line(sample, monkeypatch):
    from inspector.store import ingest as ingest_mod

    def out_of_memory(path):
        raise MemoryError
    monkeypatch.setattr(ingest_mod, "read_feed", out_of_memory)
    store = sample("moved-city")
    feed = store.parent / "feed.jsonl"
    feed.write_text("")
    result = inspector("ingest", store, feed)
    assert result.code == 2
    assert result.stderr == (f"error: out of memory; nothing more was done: run `inspector audit "
                             f"--verify {store}`, then run the command again with more memory (or "
                             "a smaller input)\n")


@pytest.mark.parametrize("device", ["/dev/urandom", "/dev/zero"])
def test_ingest_refuses_a_device_before_reading_it(sample, device):
    # /dev/urandom was read for ever, silently; /dev/zero until memory ran out.
    store = sample("moved-city")
    before = log_bytes(store)
    result = inspector("ingest", store, device)
    assert result.code == 2
    assert result.stderr == (f"error: feed {device} is not a regular file or a pipe (a device, a "
                             "directory or a socket): write the entries to a file and ingest "
                             "that; nothing was written\n")
    assert log_bytes(store) == before


def test_ingest_refuses_a_feed_over_1_gib_before_reading_it(sample):
    store = sample("moved-city")
    feed = store.parent / "big.jsonl"
    with open(feed, "wb") as f:
        f.truncate((1 << 30) + 1)           # sparse: no disk, no memory
    result = inspector("ingest", store, feed)
    assert result.code == 2
    assert result.stderr == (f"error: feed {feed} is 1.0 GiB; one ingest takes at most 1 GiB (the "
                             "whole feed is checked and written as one batch, in memory): split it "
                             f"(`split -l 500000 {feed} part-`) and ingest each part; nothing was "
                             "written\n")


def test_ingest_still_reads_a_pipe(sample):
    store = sample("moved-city")
    line = ('{"id": "X1", "entity": "user:1", "attribute": "a", "value": "v", "kind": "observation", '
            '"source": "system:crm", "authority": 3, "observed_at": "2025-01-01T00:00:00Z", '
            '"scope": "user:1"}\n')
    result = subprocess.run([sys.executable, "-m", "inspector", "ingest", str(store), "/dev/stdin",
                             "--json"], input=line, capture_output=True, text=True, timeout=120)
    assert (result.returncode, json.loads(result.stdout)["written"]) == (0, 1)


@pytest.mark.parametrize("error", [MemoryError(), "duckdb"])
def test_out_of_memory_outside_a_command_body_is_one_line(monkeypatch, capsys, error):
    import duckdb

    import inspector.cli as cli
    if error == "duckdb":
        error = duckdb.OutOfMemoryException("Out of Memory Error")

    def app(standalone_mode=True):
        raise error
    monkeypatch.setattr(cli, "load", lambda command=None: app)
    monkeypatch.setattr("sys.argv", ["inspector", "scan", "/srv/store", "--fail-on", "high"])
    with pytest.raises(SystemExit) as caught:
        cli.main()
    assert caught.value.code == 2
    assert capsys.readouterr().err == ("error: out of memory; nothing more was done: run the "
                                       "command again with more memory (or a smaller input)\n")


# ---------------------------------------------------------------- what a value names (helper-58)

@pytest.mark.parametrize("command", [("beliefs",), ("held",), ("retract", "M1", "--reason", "r"),
                                     ("open",)])
@pytest.mark.parametrize("scope,error", [
    ("user:42/", "--scope 'user:42/' has an empty segment, so nothing would match it; give "
                 "'user:42'"),
    ("/user:42", "--scope '/user:42' has an empty segment, so nothing would match it; give "
                 "'user:42'"),
    ("a//b", "--scope 'a//b' has an empty segment, so nothing would match it; give 'a/b'"),
    ("/", "--scope '/' names no scope; give a scope such as 'tenant:acme/user:42', or '' for "
          "the whole store"),
])
def test_a_scope_filter_with_an_empty_segment_is_refused_not_matched_to_nothing(
        sample, command, scope, error):
    # It matched nothing, silently: `beliefs --scope user:42/` printed no rows.
    store = sample("moved-city")
    before = log_bytes(store)
    result = inspector(command[0], store, *command[1:], "--scope", scope)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == f"error: {error}"
    assert log_bytes(store) == before


@pytest.mark.parametrize("command", [("beliefs",), ("held",), ("retract", "M1", "--reason", "r"),
                                     ("quarantine", "--source", "system:crm", "--dry-run")])
@pytest.mark.parametrize("scope,meant", [(" user:42", "user:42"), ("user:42 ", "user:42"),
                                         ("user:42/\u00a0x", "user:42/x")])
def test_a_scope_filter_with_a_blank_at_a_segment_s_edge_is_refused(sample, command, scope,
                                                                     meant):
    # `--scope ' user:42'` (a quoting slip) was taken and matched nothing, exit 0.
    store = sample("moved-city")
    before = log_bytes(store)
    result = inspector(command[0], store, *command[1:], "--scope", scope)
    assert (result.code, result.stdout) == (2, "")
    shown = repr(scope).replace("\xa0", "\\xa0")
    assert result.stderr.splitlines()[-1] == (
        f"error: --scope {shown} has a segment that begins or ends with a blank, and no "
        f"entry's scope is inside it, so nothing would match it; give {meant!r}")
    assert log_bytes(store) == before


def test_a_scope_with_a_blank_an_entry_has_is_taken(tmp_path):
    """Another writer may give an entry such a scope: --scope still reaches it."""
    from storegen import entry, write_store
    store = write_store(tmp_path / "s", [("2026-10-01T00:00:00Z", "write", entry(
        "O1", entity="e", attribute="a", value="v", scope=" tenant:acme"))])
    result = inspector("beliefs", store, "--scope", " tenant:acme", "--json")
    assert result.code == 0
    assert [b["memory_id"] for b in result.json["beliefs"]] == ["O1"]


@pytest.mark.parametrize("command", [("beliefs",), ("diff", "--from", "2025-01-01T00:00:00Z")])
def test_a_context_with_an_empty_segment_is_refused_as_a_scope_is(sample, command):
    # helper-63 #8: `beliefs --context 'a//b'` answered nothing, exit 0.
    store = sample("moved-city")
    result = inspector(command[0], store, *command[1:], "--context", "a//b")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == ("error: --context 'a//b' has an empty segment, so "
                                              "nothing would match it; give 'a/b'")


@pytest.mark.parametrize("via_env", [False, True])
def test_an_operator_name_that_holds_an_address_is_refused(sample, via_env):
    """helper-65: `--operator sam.k@corp.com` (or $INSPECTOR_OPERATOR) went into the envelope
    of every event the operator wrote, erasures' included: it outlives every erasure."""
    store = sample("moved-city")
    before = log_bytes(store)
    args = ("retract", store, "H1", "--reason", "r")
    result = (inspector(*args, env={"INSPECTOR_OPERATOR": "sam.k@corp.com"}) if via_env
              else inspector(*args, "--operator", "sam.k@corp.com"))
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == (
        "error: operator name 'sam.k@corp.com' holds personal data (an e-mail address): it stays "
        "in the log and in erasure certificates after every erasure; use an opaque identifier "
        "(e.g. a staff id)")
    assert log_bytes(store) == before


def test_an_empty_operator_is_refused_not_replaced_by_the_login_name(sample):
    store = sample("moved-city")
    before = log_bytes(store)
    result = inspector("retract", store, "M1", "--reason", "r", "--operator", "")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == (
        "error: operator name '' must be letters, digits, . _ @ - (an identifier, never "
        "content); pass --operator NAME")
    assert log_bytes(store) == before


def test_a_leap_second_is_named_as_one_with_the_time_to_give():
    # It read "is not an RFC 3339 time", which a leap second is.
    result = inspector("diff", "/nonexistent-store", "--from", "2016-12-31T23:59:60Z",
                       "--to", "2017-01-01T00:00:00Z")
    assert result.code == 2
    assert result.stderr.splitlines()[-1] == (
        "error: --from: '2016-12-31T23:59:60Z' is a leap second, which no time of the store "
        "can be; write '2016-12-31T23:59:59Z'")


def test_an_escape_in_a_quoted_value_reads_as_one_escape_not_a_backslash(sample):
    # repr() wrote ESC as \x1b, then the line's sanitizer doubled the backslash: \\x1b, which
    # is how it shows a literal backslash. A literal backslash is still shown doubled (repr's).
    store = sample("moved-city")
    result = inspector("beliefs", store, "--scope", "a\x1bb/")
    assert result.stderr.splitlines()[-1] == (
        "error: --scope 'a\\x1bb/' has an empty segment, so nothing would match it; give "
        "'a\\x1bb'")
    result = inspector("beliefs", store, "--scope", "a\\b/")
    assert result.stderr.splitlines()[-1] == (
        "error: --scope 'a\\\\b/' has an empty segment, so nothing would match it; give "
        "'a\\\\b'")


@pytest.mark.parametrize("args, says", [
    (["show"], "Missing argument 'store'; see `python -m inspector show --help`"),
    (["held", "{store}", "--as-of", "2025-01-01"],
     "No such option: --as-of (Possible options: --json); see `python -m inspector held --help`"),
    (["frobnicate"], "No such command 'frobnicate'; see `python -m inspector --help`"),
    (["policy", "frob"], "No such command 'frob'; see `python -m inspector policy --help`"),
    # An entry's id may start with '-' (stop 61 left it: the error did not say how to give one)
    (["show", "{store}", "-x1"], "No such option: -x (if -x1 is an id or a value, put it after "
     "`--`: `... -- -x1`); see `python -m inspector show --help`"),
    (["retract", "{store}", "--reason", "r", "--operator", "bo", "-M1"], "No such option: -M "
     "(if -M1 is an id or a value, put it after `--`: `... -- -M1`); see `python -m inspector "
     "retract --help`"),
])
def test_a_usage_error_is_one_line_and_exit_2(sample, args, says):
    """helper-61: Typer printed a usage line, a hint and a boxed error (five lines, box
    drawing) where every other error is one line."""
    store = sample("branch-contamination")
    before = (store / "events.jsonl").read_bytes()
    result = inspector(*[a.replace("{store}", str(store)) for a in args], subprocess_run=True)
    assert (result.code, result.stdout, result.stderr) == (2, "", f"error: {says}; nothing was done\n")
    assert (store / "events.jsonl").read_bytes() == before


def test_demo_with_a_bad_operator_copies_nothing(tmp_path):
    """`demo --operator 'bad name'` copied the sample to a temp directory, then refused, and the
    copy stayed (helper-78): the name is refused first, nothing written."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    result = subprocess.run([sys.executable, "-m", "inspector", "demo", "--operator", "bad name"],
                            capture_output=True, text=True, env={**os.environ, "TMPDIR": str(temp)})
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("error: operator name 'bad name' must be letters, digits")
    assert result.stderr.count("\n") == 1 and list(temp.iterdir()) == []


@pytest.mark.parametrize("command", [["beliefs"], ["diff", "--from", "2025-01-01T00:00:00Z"]])
def test_a_context_outside_the_scope_is_refused(sample, command):
    """`--scope tenant:globex --context tenant:acme` answered nothing, exit 0, without a word
    (helper-78): no entry inside the scope is visible from a context outside it."""
    store = sample("multi-tenant")
    before = log_bytes(store)
    result = inspector(command[0], store, *command[1:], "--scope", "tenant:globex",
                       "--context", "tenant:acme")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == ("error: --context 'tenant:acme' is outside --scope 'tenant:globex', "
                             "so no entry of the scope is visible from it; give a context inside "
                             "'tenant:globex' (or 'tenant:globex' itself)\n")
    inside = inspector(command[0], store, *command[1:], "--scope", "tenant:acme",
                       "--context", "tenant:acme/user:alice")
    assert inside.code == 0 and log_bytes(store) == before
