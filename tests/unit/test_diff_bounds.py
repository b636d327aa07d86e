"""`diff`'s causes are bounded: at most MAX_CAUSES events a change, found at most MAX_STEPS
justification steps above the entries involved, nearest first, with `causes_truncated` when the
list stops short. Without the bounds, n rolling summaries written in one window listed
n(n+1)/2 causes (2,000 of them: 32 s, 6 GB and 440 MB of JSON); the 20,000-deep chain here runs
with DuckDB capped at 500 MB. Below the bounds the causes are exactly the unbounded walk's."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from storegen import entry, write_store
from inspector.store import diff
from inspector.store.load import Store
from inspector.store.model import parse_time

BEFORE = datetime(2024, 12, 31, tzinfo=timezone.utc)
AFTER = datetime(2025, 1, 2, tzinfo=timezone.utc)
AT = "2025-01-01T00:00:00Z"


def _changes(root, memory: str | None = None) -> dict[str, dict]:
    store = Store(root, warn=False)
    if memory:
        store.con.execute(f"SET memory_limit = '{memory}'")
    return {c["attribute"]: c for c in diff.changes(store.con, BEFORE, AFTER)}


def _chain(n: int) -> list[tuple]:
    """C0, an observation; C1..C(n-1) summaries, each citing the one before; Ci is seq i + 1."""
    events = [(AT, "write", entry("C0", "svc", "a0", 1))]
    for i in range(1, n):
        events.append((AT, "write", entry(f"C{i}", "svc", f"a{i}", 1, kind="summary",
                                          source="agent:1", justification=[f"C{i - 1}"])))
    return events


def _seqs(change: dict) -> list[int]:
    return [c["seq"] for c in change["causes"]]


def test_a_chain_lists_its_entry_and_the_sixteen_steps_above_it(tmp_path):
    assert (diff.MAX_STEPS, diff.MAX_CAUSES) == (16, 100)
    rows = _changes(write_store(tmp_path / "s", _chain(40)))
    assert len(rows) == 40
    # C16 rests on 16 entries: all of them, and nothing beyond.
    assert (_seqs(rows["a16"]), rows["a16"]["causes_truncated"]) == (list(range(1, 18)), False)
    # C17's seventeenth step (C0, seq 1) is beyond the bound.
    assert (_seqs(rows["a17"]), rows["a17"]["causes_truncated"]) == (list(range(2, 19)), True)
    assert (_seqs(rows["a39"]), rows["a39"]["causes_truncated"]) == (list(range(24, 41)), True)
    assert [c["memory_id"] for c in rows["a39"]["causes"]] == [f"C{i}" for i in range(23, 40)]
    assert (_seqs(rows["a0"]), rows["a0"]["causes_truncated"]) == ([1], False)


def test_an_entry_with_more_events_than_the_bound_lists_its_earliest(tmp_path):
    events = [(AT, "write", entry("E", value=0))]
    events += [(AT, "update", entry("E", value=i)) for i in range(1, 121)]
    rows = _changes(write_store(tmp_path / "s", events))
    assert list(rows) == ["a"] and rows["a"]["after"] == {"memory_id": "E", "value": 120}
    assert (_seqs(rows["a"]), rows["a"]["causes_truncated"]) == (list(range(1, 101)), True)


def test_a_summary_citing_more_entries_than_a_step_keeps(tmp_path):
    """150 cited observations, written first (O000 is seq 1): one step keeps 100 entries in id
    order (O000..O099), and the list keeps the summary's own write (depth 0, seq 151) and the
    99 nearest, earliest events after it."""
    cited = [f"O{i:03}" for i in range(150)]
    events = [(AT, "write", entry(o, "obs", o, 1)) for o in cited]
    events.append((AT, "write", entry("S", "svc", "sum", 1, kind="summary", source="agent:1",
                                      justification=cited)))
    rows = _changes(write_store(tmp_path / "s", events))
    assert (_seqs(rows["sum"]), rows["sum"]["causes_truncated"]) == (list(range(1, 100)) + [151], True)
    assert (_seqs(rows["O149"]), rows["O149"]["causes_truncated"]) == ([150], False)
    # 101 cited entries: the step drops one (O100), so the list is cut though 100 fit.
    rows = _changes(write_store(tmp_path / "t", events[:101] + [(AT, "write", entry(
        "S", "svc", "sum", 1, kind="summary", source="agent:1", justification=cited[:101]))]))
    assert (_seqs(rows["sum"]), rows["sum"]["causes_truncated"]) == (list(range(1, 100)) + [102], True)


def test_a_diamond_reached_by_many_paths_is_listed_once(tmp_path):
    """Entries reached along several paths (each at several depths) are one cause each."""
    events = [(AT, "write", entry("B", "svc", "base", 1))]
    layer = ["B"]
    for depth in range(1, 6):
        nxt = [f"L{depth}x{j}" for j in range(3)]
        events += [(AT, "write", entry(i, "svc", i, 1, kind="summary", source="agent:1",
                                       justification=layer)) for i in nxt]
        layer = nxt
    rows = _changes(write_store(tmp_path / "s", events))
    assert (_seqs(rows["L5x0"]), rows["L5x0"]["causes_truncated"]) == (list(range(1, 15)), False)


@pytest.mark.parametrize("name", ["branch-contamination", "incident-afternoon", "moved-city",
                                  "multi-tenant", "refund-window", "report-language"])
def test_below_the_bounds_the_causes_are_the_whole_walk(sample, name, monkeypatch):
    """Every sample, from before its first event to its middle one and to its last, and from
    the middle to the last: bounded and unbounded walks give the same changes, none truncated."""
    store = Store(sample(name), warn=False)
    times = sorted(t for (t,) in store.con.execute('SELECT DISTINCT "at" FROM versions').fetchall())
    first, middle, last = times[0] - timedelta(seconds=1), times[len(times) // 2], times[-1]
    windows = [(first, last), (first, middle), (middle, last)]
    for t1, t2 in windows:
        bounded = diff.changes(store.con, t1, t2)
        with monkeypatch.context() as m:
            m.setattr(diff, "MAX_CAUSES", 1_000_000)
            m.setattr(diff, "MAX_STEPS", 200)
            whole = diff.changes(store.con, t1, t2)
        assert bounded == whole
        assert not any(c["causes_truncated"] for c in bounded)
    assert any(diff.changes(store.con, t1, t2) for t1, t2 in windows)


def test_a_chain_of_20000_summaries_in_one_window_fits_in_500mb(tmp_path):
    rows = _changes(write_store(tmp_path / "s", _chain(20000)), memory="500MB")
    assert len(rows) == 20000
    assert (_seqs(rows["a19999"]), rows["a19999"]["causes_truncated"]) == (list(range(19984, 20001)), True)
    assert sum(len(c["causes"]) for c in rows.values()) == 17 * 20000 - sum(range(1, 17))
    assert parse_time(rows["a0"]["causes"][0]["at"]) == parse_time(AT)
