"""Crash safety (DESIGN §7): SIGKILL an appender at random moments, crash an erasure at each
stage of its rewrite, truncate the last line at every byte. Set CRASH_TRIALS for a long run."""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from storegen import entry, write_store
from inspector.store.append import LogWriter
from inspector.store.audit import verify
from inspector.store.load import Store
from inspector.store.logfile import read_tail, store_paths

CHILD = Path(__file__).with_name("crash_child.py")
TRIALS = int(os.environ.get("CRASH_TRIALS", "100"))   # closing notes: CRASH_TRIALS=1000


def first_ack(proc: subprocess.Popen, timeout: float = 60.0) -> str:
    """The child's first acknowledgement line (its first batch is fsynced): kills are timed
    from here, not from the spawn, so that a busy machine's slow start changes nothing."""
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else ""
    if not line.startswith("ack "):
        proc.kill()
        proc.communicate()
        raise AssertionError(f"the appender gave no acknowledgement within {timeout} s: {line!r}")
    return line


def kill_trial(root: Path, rng: random.Random, slow: bool) -> tuple[int, int, int]:
    """One appender killed a random moment after its first acknowledgement; returns (first
    acked seq, highest acked seq, torn bytes)."""
    proc = subprocess.Popen([sys.executable, str(CHILD), "append", str(root), "100000",
                             str(rng.choice([1, 3, 20])), *(["--slow"] if slow else [])],
                            stdout=subprocess.PIPE, text=True)
    first = first_ack(proc)
    time.sleep(rng.uniform(0.0, 0.1))
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate()
    acks = [int(line.split()[1]) for line in (first + out).splitlines() if line.startswith("ack ")]
    return acks[0], max(acks), len(read_tail(root / "events.jsonl").torn)


@pytest.mark.heavy
def test_killed_appenders_lose_nothing_acknowledged(tmp_path):
    rng = random.Random(int(os.environ.get("CRASH_SEED", "20261129")))
    torn_seen, past_first, root = 0, 0, None
    for trial in range(TRIALS):
        if trial % 25 == 0:
            root = write_store(tmp_path / f"s{trial}", [("2025-01-01T00:00:00Z", "write", entry("M0"))])
        first, acked, torn = kill_trial(root, rng, slow=trial % 2 == 0)
        torn_seen += torn > 0
        past_first += acked > first
        store = Store(root, warn=False)          # loads: at most the torn last line is ignored
        assert store.state.seq >= acked, f"trial {trial}: acked {acked}, log has {store.state.seq}"
        assert len(store.state.torn) == torn and b"\n" not in store.state.torn
        with LogWriter(store_paths(root)) as writer:
            writer.set_torn_aside()               # recovery: the torn tail moves aside
        once = (root / "events.jsonl").read_bytes()
        with LogWriter(store_paths(root)) as writer:
            writer.set_torn_aside()
        assert (root / "events.jsonl").read_bytes() == once, "recovery is not idempotent"
        report = verify(store_paths(root))
        assert report.ok, (trial, report.as_json())
        store.close()
    print(f"\n{TRIALS} kills after the first acknowledgement: {past_first} after later ones too, "
          f"{torn_seen} left a torn line")
    # Every trial is acknowledged (the kill waits for it); the kills must also land inside
    # later appends and inside lines, or the test would prove nothing about them.
    assert torn_seen > TRIALS // 10 and past_first > TRIALS // 4


def subject_store(tmp_path) -> Path:
    return write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("A", entity="user:5", subject="user:5", value="secret-a")),
        ("2025-01-01T00:00:01Z", "write", entry("B", entity="other", attribute="b", value="keep-b"))])


@pytest.mark.parametrize("stage, erased", [
    ("erase:after_temp", False), ("erase:after_rename", True), ("erase:after_dir_fsync", True)])
def test_a_crashed_erasure_leaves_the_old_log_or_the_new_one(tmp_path, stage, erased):
    root = subject_store(tmp_path)
    old = (root / "events.jsonl").read_bytes()
    proc = subprocess.run([sys.executable, str(CHILD), "erase", str(root), stage], capture_output=True)
    assert proc.returncode == 9, proc.stderr
    new = (root / "events.jsonl").read_bytes()
    if erased:
        assert b"secret-a" not in new and new.count(b"\n") == 3
        assert [json.loads(l)["op"] for l in new.splitlines()] == ["write", "write", "erase"]
    else:
        assert new == old
    with LogWriter(store_paths(root)):
        pass                                        # settles the pending certificate
    certificates = sorted(p.name for p in (root / "certificates").iterdir())
    assert len(certificates) == (1 if erased else 0) and all(c.endswith(".json") for c in certificates)
    assert verify(store_paths(root)).ok
    assert temp_files(root) == []                   # the next writer removed the crash's temp file
    Store(root, warn=False)


def temp_files(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if ".tmp-" in p.name or p.name.endswith(".pending"))


def test_a_failed_erasure_says_which_reports_it_deleted_first(tmp_path, monkeypatch):
    """The reports that mention an erased entry are deleted before the log is rewritten (they
    hold what is erased); a full disk then undid the erasure and said "nothing was changed",
    with the report gone."""
    from inspector.store import files
    from inspector.store.actions import Request
    from inspector.store.errors import InspectorError
    from inspector.store.registry import apply, plan
    root = subject_store(tmp_path)
    made = subprocess.run([sys.executable, "-m", "inspector", "report", str(root), "--format", "md"],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    (report,) = [p.relative_to(root) for p in (root / "reports").iterdir()]
    old = (root / "events.jsonl").read_bytes()
    store = Store(root, warn=False)
    reviewed = plan(store, Request("erase", "DSR-1", "dana", subject="user:5"))
    assert reviewed.reports == [str(report)]

    def full_disk(stage: str) -> None:
        if stage == "erase:writing":
            raise OSError(28, "No space left on device")
    monkeypatch.setattr(files, "crash_hook", full_disk)
    with pytest.raises(InspectorError) as failed:
        apply(store, reviewed)
    assert str(failed.value) == (
        f"cannot erase: writing to {root} failed (No space left on device); the log was not "
        f"changed, but the 1 report(s) that mention the entries were deleted first ({report}; "
        "`inspector report` makes them again): free some space and run erase again")
    assert (root / "events.jsonl").read_bytes() == old and not (root / report).exists()
    store.close()


def test_a_failed_erasure_leaves_no_temp_file(tmp_path, monkeypatch):
    from inspector.store import files
    from inspector.store.actions import Request
    from inspector.store.errors import InspectorError
    from inspector.store.registry import apply, plan
    root = subject_store(tmp_path)
    old = (root / "events.jsonl").read_bytes()
    store = Store(root, warn=False)
    reviewed = plan(store, Request("erase", "DSR-1", "dana", subject="user:5"))
    seen = []

    def full_disk(stage: str) -> None:
        seen.append(stage)
        if stage == "erase:writing":                # the temp file is open and half written
            raise OSError(28, "No space left on device")
    monkeypatch.setattr(files, "crash_hook", full_disk)
    with pytest.raises((OSError, InspectorError)) as failed:
        apply(store, reviewed)
    assert "nothing was changed: free some space" in str(failed.value)
    monkeypatch.setattr(files, "crash_hook", None)
    assert "erase:writing" in seen, "the failure was never injected"
    assert (root / "events.jsonl").read_bytes() == old and temp_files(root) == []
    assert not (root / "certificates").exists() or list((root / "certificates").iterdir()) == []
    store.close()
    again = Store(root, warn=False)
    done = apply(again, plan(again, Request("erase", "DSR-1", "dana", subject="user:5")))
    assert done.erased == ["A"] and temp_files(root) == []
    again.close()


def test_truncating_the_last_line_at_every_byte(tmp_path):
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("A")),
        ("2025-01-01T00:00:01Z", "write", entry("B", attribute="b", value=["ü", {"k": "\u2028"}]))])
    data = (root / "events.jsonl").read_bytes()
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    store = Store(root, warn=False)
    for cut in range(start, len(data) + 1):
        (root / "events.jsonl").write_bytes(data[:cut])
        store.reload()
        complete = cut == len(data)
        assert store.state.seq == (2 if complete else 1), cut
        assert store.state.torn == (b"" if complete else data[start:cut])
        assert store.con.execute("SELECT count(*) FROM versions").fetchone() == ((2,) if complete else (1,))


def test_an_erasure_whose_last_fsync_fails_stands(tmp_path, monkeypatch):
    """The certificate is renamed into place, then its directory's fsync fails: the erasure is
    done (recovery finishes it at once), not reported as failed."""
    from inspector.store import erasure
    from inspector.store.actions import Request
    from inspector.store.registry import apply, plan
    root = subject_store(tmp_path)
    store = Store(root, warn=False)
    reviewed = plan(store, Request("erase", "DSR-1", "dana", subject="user:5"))

    def failing_fsync(path):
        raise OSError(5, "Input/output error")
    monkeypatch.setattr(erasure, "fsync_dir", failing_fsync)
    done = apply(store, reviewed)
    monkeypatch.undo()
    assert done.erased == ["A"] and done.certificate is not None
    assert [p.name for p in (root / "certificates").iterdir()] == [f"{done.certificate['id']}.json"]
    assert b"secret-a" not in (root / "events.jsonl").read_bytes() and temp_files(root) == []
    store.close()
