"""The Python writer docs/format.md gives another tool, run as printed: it chains a line the
inspector loads and verifies, and it never appends after what a crash left (helper-63 #4: it
appended after the first event of a cut batch, which every reader then applied in part and
`audit --verify` passed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clirun import inspector

DOC = Path(__file__).resolve().parents[2] / "docs" / "format.md"


def recipe() -> dict:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    (code,) = [b for b in blocks if "def append(path, events):" in b]
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)         # noqa: S102 (our own document)
    return namespace


def event(memory_id: str) -> dict:
    after = {"id": memory_id, "entity": "svc", "attribute": "owner", "value": "team-z",
             "kind": "observation", "source": "system:cmdb", "scope": "tenant:acme",
             "observed_at": "2025-06-05T00:00:00Z", "status": "active"}
    return {"at": "2025-06-05T00:00:01Z", "actor": "system:cmdb", "op": "write",
            "memory_id": memory_id, "batch": None,
            "body": {"before": None, "after": after, "reason": None}}


def test_a_line_the_recipe_writes_loads_and_verifies(sample):
    store = sample("multi-tenant")
    recipe()["append"](str(store / "events.jsonl"), [event("Z1")])
    assert inspector("audit", store, "--verify", "--json").json["ok"] is True
    assert inspector("show", store, "Z1", "--json").json["entry"]["value"] == "team-z"


@pytest.mark.parametrize("crash", ["cut batch", "torn line"])
def test_the_recipe_never_appends_after_what_a_crash_left(sample, crash):
    store = sample("multi-tenant")
    log = store / "events.jsonl"
    assert inspector("quarantine", store, "T1", "T2", "--reason", "INC").code == 0
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]) if crash == "cut batch" else b"".join(lines) + b'{"seq": 1')
    before = log.read_bytes()
    with pytest.raises(RuntimeError, match="the log ends in what a crash left"):
        recipe()["append"](str(log), [event("Z1")])
    assert log.read_bytes() == before


def test_a_batch_cut_short_then_written_after_fails_the_audit_and_stops_every_load(sample):
    """What a writer that ignores the rule leaves (helper-63 #4): the quarantine of T1 and T2
    cut after T1, then a line chained after it. `audit --verify` passed it, and every reader
    applied T1's quarantine alone (stop 56's helper-61); it is a problem the audit reports and
    every loading command refuses, in the same words, as it refuses a torn line written after."""
    from inspector.store.chain import line_bytes, seal_after
    store = sample("multi-tenant")
    log = store / "events.jsonl"
    done = inspector("quarantine", store, "T1", "T2", "--reason", "INC", "--json").json
    lines = log.read_bytes().splitlines(keepends=True)[:-1]
    last = json.loads(lines[-1])
    (line,) = seal_after([event("Z1")], last["seq"], last["hash"], "2025-06-05T00:00:01Z")
    log.write_bytes(b"".join(lines) + line_bytes(line))
    result = inspector("audit", store, "--verify", "--json")
    assert (result.code, result.json["ok"]) == (1, False)
    seq = done["seqs"][0]
    why = (f"batch {done['batch']} has 1 of its 2 events, and lines follow it: it was cut "
           "short, and an action is applied whole or not at all")
    assert result.json["problems"] == [{"seq": seq, "problem": f"seq {seq}: {why}"}]
    refusal = (f"error: events.jsonl line {seq} (seq {seq}): {why}; nothing was loaded: run "
               f"`inspector audit --verify {store}` for the full report\n")
    for command in (["show", store, "T1", "--json"], ["held", store, "--json"],
                    ["beliefs", store, "--json"]):
        shown = inspector(*command)
        assert (shown.code, shown.stdout, shown.stderr) == (2, "", refusal)
    # The refusals wrote nothing
    assert log.read_bytes() == b"".join(lines) + line_bytes(line)
