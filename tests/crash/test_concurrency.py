"""Four writer processes append 500 events each while an operator applies actions: every
event lands once, the chain never forks (DESIGN §7)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from storegen import entry, write_store
from inspector.store.actions import Request
from inspector.store.registry import apply, plan as make_plan
from inspector.store.audit import verify
from inspector.store.errors import Refused
from inspector.store.load import Store
from inspector.store.logfile import store_paths

CHILD = Path(__file__).with_name("crash_child.py")


def test_four_writers_and_an_operator(tmp_path):
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("R", value="root")),
        ("2025-01-01T00:00:01Z", "write", entry("S", attribute="s", kind="summary", justification=["R"]))])
    writers = [subprocess.Popen([sys.executable, str(CHILD), "append", str(root), "500", "1"],
                                stdout=subprocess.PIPE, text=True) for _ in range(4)]
    store, actions = Store(root, warn=False), 0
    for i in range(20):
        name = "quarantine" if i % 2 == 0 else "release"
        try:
            applied = apply(store, make_plan(store, Request(name, f"drill {i}", "alice", ("R",), cascade=True)))
            actions += len(applied.seqs)
        except Refused:                    # "store changed; review again" is allowed, never a fork
            pass
    acked = [max(int(l.split()[1]) for l in w.communicate()[0].splitlines()) for w in writers]
    assert [w.returncode for w in writers] == [0, 0, 0, 0]
    lines = [json.loads(l) for l in (root / "events.jsonl").read_bytes().splitlines()]
    assert len(lines) == 2 + 2000 + actions
    assert [l["seq"] for l in lines] == list(range(1, len(lines) + 1))
    by_writer = {}
    for line in lines:
        if line["actor"] == "agent:crash":
            by_writer.setdefault(line["memory_id"].split("-")[0], []).append(line["memory_id"])
    assert sorted(len(v) for v in by_writer.values()) == [500, 500, 500, 500]
    assert all(len(set(v)) == 500 for v in by_writer.values())
    assert max(acked) <= len(lines)
    assert verify(store_paths(root)).ok
    print(f"\n2000 appends by 4 writers + {actions} action events; chain verified")
    assert actions >= 20
