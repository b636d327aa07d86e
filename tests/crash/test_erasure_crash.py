"""Recovery finishes the job (DESIGN §6): an erasure killed at any stage is completed or undone
by the next command that writes, and then no file under the store holds an erased byte; the
certificate exists exactly when the redacted log does."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

from logtools import readable_bytes
from storegen import entry, write_store
from inspector.store import registry
from inspector.store.actions import Request
from inspector.store.append import LogWriter
from inspector.store.audit import verify
from inspector.store.load import Store
from inspector.store.logfile import store_paths

CHILD = Path(__file__).with_name("crash_child.py")     # `erase STORE STAGE` erases user:5
ROOT = Path(__file__).resolve().parents[2]
CANARIES = ["canary-5d1e0a-ünï \"q\" /x", "canary-9b7c44-torn", "canary-13aa2f-view", "canary-e0c2d8-temp"]
STAGES = ["erase:after_pending", "erase:writing", "erase:after_temp", "erase:after_rename",
          "erase:after_dir_fsync", "erase:before_certificate"]


def forms(canary: str) -> list[bytes]:
    """The canary as bytes in every encoding a file might hold it in."""
    core = canary.split(" ")[0].encode()
    return [core, canary.encode(), json.dumps(canary).encode()[1:-1],
            json.dumps(canary, ensure_ascii=False).encode()[1:-1], base64.b64encode(canary.encode()),
            base64.b64encode(core), urllib.parse.quote(canary).encode()]


def residue(root: Path) -> list[tuple[str, bytes]]:
    return [(str(path.relative_to(root)), form) for path in root.rglob("*")
            if path.is_file() and not path.is_symlink()
            for canary in CANARIES for form in forms(canary) if form in readable_bytes(path)]


def crash_store(tmp_path: Path) -> Path:
    """user:5's entries (the canaries), someone else's entry, and residue of earlier crashes:
    a torn tail, a view and a belief snapshot under .inspector/, a stale temp file of a
    replace."""
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("A", entity="user:5", subject="user:5", value=CANARIES[0])),
        ("2025-01-01T00:00:01Z", "write", entry("B", entity="other", attribute="b", value="keep-b")),
        ("2025-01-02T00:00:00Z", "update", entry("A", entity="user:5", subject="user:5",
                                                 value={"deep": [[CANARIES[0]]]}))] +
        [(f"2025-01-03T00:00:{i:02d}Z", "write", entry(f"F{i}", entity="other", attribute=f"f{i}",
                                                       value="filler " * 40)) for i in range(40)])
    with (root / "events.jsonl").open("ab") as f:
        f.write(b'{"seq":44,"body":{"after":{"value":"' + CANARIES[1].encode())
    (root / ".inspector").mkdir(mode=0o700)
    (root / ".inspector" / "view.duckdb").write_bytes(CANARIES[2].encode() + CANARIES[0].encode())
    (root / ".inspector" / "beliefs.duckdb").write_bytes(CANARIES[0].encode())   # a TUI's snapshot
    (root / ".events.jsonl.tmp-77-dead").write_bytes(CANARIES[3].encode())
    return root


def writing_command(root: Path) -> None:
    """The next command that writes: a quarantine of someone else's entry, as a user runs it."""
    done = subprocess.run([sys.executable, "-m", "inspector", "quarantine", str(root), "B",
                           "--reason", "INC-1", "--operator", "ops"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("stage", STAGES)
def test_a_crashed_erasure_is_finished_or_undone_with_no_residue(tmp_path, stage):
    root = crash_store(tmp_path)
    proc = subprocess.run([sys.executable, str(CHILD), "erase", str(root), stage], capture_output=True)
    assert proc.returncode == 9, proc.stderr
    log_after_crash = (root / "events.jsonl").read_bytes()
    redacted = CANARIES[0].split(" ")[0].encode() not in log_after_crash

    writing_command(root)

    certificates = sorted(p.name for p in (root / "certificates").iterdir()) \
        if (root / "certificates").exists() else []
    assert not [c for c in certificates if not c.endswith(".json")], certificates
    assert not [p.name for p in root.iterdir() if ".tmp-" in p.name]
    assert len(certificates) == (1 if redacted else 0), (stage, certificates)
    assert verify(store_paths(root)).ok
    if redacted:
        assert stage not in ("erase:after_pending", "erase:writing", "erase:after_temp")
        assert residue(root) == []
        cert = json.loads((root / "certificates" / certificates[0]).read_bytes())
        assert cert["erased_ids"] == ["A"] and f'"certificate":"{cert["id"]}"'.encode() in \
            (root / "events.jsonl").read_bytes()
    else:
        assert stage in ("erase:after_pending", "erase:writing", "erase:after_temp")
        store = Store(root, warn=False)             # undone: the erasure can simply be run again
        registry.apply(store, registry.plan(store, Request("erase", "DSR-1", "dana", subject="user:5")))
        store.con.close()
        assert residue(root) == []
        assert len(list((root / "certificates").iterdir())) == 1
    assert b"keep-b" in (root / "events.jsonl").read_bytes()


@pytest.mark.parametrize("stage", ["erase:after_rename", "erase:before_certificate"])
def test_recovery_is_idempotent_and_runs_before_any_append(tmp_path, stage):
    root = crash_store(tmp_path)
    assert subprocess.run([sys.executable, str(CHILD), "erase", str(root), stage]).returncode == 9
    with LogWriter(store_paths(root)):
        pass
    once = sorted((str(p.relative_to(root)), p.read_bytes()) for p in root.rglob("*") if p.is_file())
    with LogWriter(store_paths(root)):
        pass
    twice = sorted((str(p.relative_to(root)), p.read_bytes()) for p in root.rglob("*") if p.is_file())
    assert once == twice and residue(root) == []


@pytest.mark.parametrize("command", [["show", "B", "--json"], ["audit", "--verify", "--json"]])
@pytest.mark.parametrize("stage", ["erase:after_pending", "erase:after_rename",
                                   "erase:after_dir_fsync", "erase:before_certificate"])
def test_the_next_command_that_reads_settles_a_crashed_erasure(tmp_path, stage, command):
    """The erased bytes do not wait for a write: the first command that opens the store (or
    verifies it) while no writer is at work finishes the erasure, or undoes it when the log
    was not replaced, and says so on stderr."""
    root = crash_store(tmp_path)
    assert subprocess.run([sys.executable, str(CHILD), "erase", str(root), stage]).returncode == 9
    redacted = CANARIES[0].split(" ")[0].encode() not in (root / "events.jsonl").read_bytes()
    assert redacted == (stage != "erase:after_pending")
    done = subprocess.run([sys.executable, "-m", "inspector", command[0], str(root), *command[1:]],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    certificates = sorted(p.name for p in (root / "certificates").iterdir())
    cid = (certificates[0] if redacted else "").removesuffix(".json")
    said = re.search(r"settled an erasure that was interrupted: (\S+) (finished|undone) ", done.stderr)
    assert said is not None, done.stderr
    assert said.group(2) == ("finished" if redacted else "undone")
    assert not redacted or said.group(1) == cid
    assert len(certificates) == (1 if redacted else 0) and not [
        c for c in certificates if not c.endswith(".json")], certificates
    assert verify(store_paths(root)).ok
    if redacted:
        assert residue(root) == []


def test_a_pending_certificate_is_left_alone_while_a_writer_holds_the_lock(tmp_path):
    """A pending certificate beside a held lock is an erasure at work, not a crash."""
    root = crash_store(tmp_path)
    assert subprocess.run([sys.executable, str(CHILD), "erase", str(root),
                           "erase:after_rename"]).returncode == 9
    pending = sorted(p.name for p in (root / "certificates").iterdir())
    assert len(pending) == 1 and pending[0].endswith(".json.pending")
    lock = os.open(root / ".lock", os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)                     # as a writer at work holds it
    try:
        store = Store(root, warn=False)
        assert sorted(p.name for p in (root / "certificates").iterdir()) == pending
        assert not [w for w in store.state.warnings if "settled" in w]
        store.close()
    finally:
        os.close(lock)
    store = Store(root, warn=False)
    cid = pending[0][:-len(".json.pending")]
    assert [w for w in store.state.warnings if "settled" in w] == [
        f"{root}: settled an erasure that was interrupted: {cid} finished (the log had been "
        "rewritten; the certificate is final)"]
    assert sorted(p.name for p in (root / "certificates").iterdir()) == [pending[0][:-len(".pending")]]
    store.close()
    assert residue(root) == []
