"""One entry as `show` reads it, the held queue, and what a selector matches (DESIGN §5, §8):
orders, boundaries and the malformed entry, each where a wrong query would answer otherwise."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from storegen import entry, write_store
from inspector.store import entries
from inspector.store.load import Store
from inspector.store.queries import sql

NOW = datetime(2025, 6, 1, tzinfo=timezone.utc)


def at(second: int) -> str:
    return f"2025-01-01T00:00:{second:02d}Z"


@pytest.fixture
def store(tmp_path) -> Store:
    a = entry("A", value="first", scope="repo:svc", source="tool:ci/run-1")
    h1, h2 = (entry(i, attribute=i.lower(), status="held", held_reason="secret", scope="repo:svc")
              for i in ("H1", "H2"))
    events = [
        (at(0), "write", a),
        (at(1), "hold", h2),                                       # H2 is held first ...
        (at(2), "update", {**a, "value": "second"}),
        (at(3), "hold", h1),                                       # ... then H1
        (at(4), "update", {**a, "value": "third"}),
        (at(5), "write", entry("DUE_NOW", attribute="d1", expires_at="2025-06-01T00:00:00Z",
                               scope="repo:svc2", source="tool:ci/run-2")),
        (at(6), "write", entry("DUE_LATER", attribute="d2", expires_at="2025-06-01T00:00:01Z",
                               scope="repo:svc/branch:x", source="tool:ci")),
        (at(7), "write", entry("DUE_GONE", attribute="d3", expires_at="2025-05-01T00:00:00Z",
                               status="quarantined", scope="repo:svc")),
    ]
    loaded = Store(write_store(tmp_path / "s", events), warn=False)
    yield loaded
    loaded.close()


def test_the_events_of_an_entry_oldest_first(store):
    assert [(e["seq"], e["op"], e["value"]) for e in entries.events(store.con, "A")] == [
        (1, "write", "first"), (3, "update", "second"), (5, "update", "third")]


def test_the_held_queue_oldest_hold_first(store):
    assert [e["id"] for e in entries.each_held(store.con)] == ["H2", "H1"]


@pytest.fixture
def long_queue(tmp_path) -> Store:
    """250 held entries, held in an order their ids do not sort in, with writes between."""
    events = []
    for i in range(250):
        n = (i * 97) % 250
        events.append((at(i % 60), "hold", entry(f"H{n:03d}", attribute=f"k{n}", status="held",
                                                  held_reason="secret")))
        if i % 3 == 0:
            events.append((at(i % 60), "write", entry(f"W{i}", attribute=f"w{i}")))
    loaded = Store(write_store(tmp_path / "q", events), warn=False)
    yield loaded
    loaded.close()


QUEUE = [f"H{(i * 97) % 250:03d}" for i in range(250)]


def test_the_held_queue_is_read_a_page_at_a_time_in_hold_order(long_queue, monkeypatch):
    monkeypatch.setattr(entries, "HELD_PAGE", 7)
    got = entries.each_held(long_queue.con)
    first = [next(got)["id"] for _ in range(3)]
    assert first == QUEUE[:3]
    assert first + [e["id"] for e in got] == QUEUE
    # the queue is sorted and paged under HELD_CAP, which is put back once the queue is read
    watched = _FailsOnFetch(long_queue.con, set())
    assert [e["id"] for e in entries.each_held(watched)] == QUEUE
    assert watched.limits == ["256.0 MiB"]
    assert long_queue.con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == _default_limit()


def _default_limit() -> str:
    from inspector.store.engine import duckdb
    return duckdb.connect().execute("SELECT current_setting('memory_limit')").fetchone()[0]


class _FailsOnFetch:
    """A connection whose fetches fail for memory at the chosen calls (DuckDB's paging of a
    sort under a cap too small for it), and which records the memory limit of each run."""

    def __init__(self, con, failing: set[int]):
        self.con, self.failing, self.fetches, self.limits = con, failing, 0, []

    def execute(self, statement, *args):
        if "FROM entries" in statement:
            self.limits.append(self.con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
        self.con.execute(statement, *args)
        return self

    def fetchmany(self, n):
        self.fetches += 1
        if self.fetches in self.failing:
            from inspector.store.engine import duckdb
            raise duckdb.OutOfMemoryException("could not allocate block of size 256.0 KiB")
        return self.con.fetchmany(n)


@pytest.mark.parametrize("fails_at", [1, 5])
def test_a_page_the_cap_is_too_small_for_is_read_again_uncapped_from_where_it_stopped(
        long_queue, monkeypatch, fails_at):
    monkeypatch.setattr(entries, "HELD_PAGE", 10)
    con = _FailsOnFetch(long_queue.con, {fails_at})
    assert [e["id"] for e in entries.each_held(con, cap=64 << 20)] == QUEUE
    assert con.limits == ["64.0 MiB", _default_limit()]      # capped, then again uncapped
    assert long_queue.con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == _default_limit()


def test_a_second_failure_uncapped_is_the_command_s_error(long_queue):
    from inspector.store.engine import duckdb
    con = _FailsOnFetch(long_queue.con, {2, 3})
    with pytest.raises(duckdb.OutOfMemoryException):
        list(entries.each_held(con, cap=64 << 20))
    assert long_queue.con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == _default_limit()


def test_a_well_formed_entry_is_not_malformed(store):
    assert entries.malformed(store.con, "A") is None
    assert entries.malformed(store.con, "NOPE") is None


def select(store, **params):
    base = {"source": None, "principal": None, "due": False, "now": NOW, "scope": None}
    return [r[0] for r in store.con.execute(sql("action_select"), {**base, **params}).fetchall()]


def test_due_means_active_and_expiring_at_or_before_now(store):
    assert select(store, due=True) == ["DUE_NOW"]                  # DUE_GONE is not active
    assert select(store, due=True, now=datetime(2025, 6, 1, 0, 0, 1, tzinfo=timezone.utc)) == [
        "DUE_LATER", "DUE_NOW"]


def test_source_principal_and_scope_select_by_whole_values(store):
    assert select(store, source="tool:ci") == ["DUE_LATER"]        # exact source only
    assert select(store, principal="tool:ci") == ["A", "DUE_LATER", "DUE_NOW"]
    assert select(store, principal="tool:ci", scope="repo:svc") == ["A", "DUE_LATER"]   # not svc2
    assert select(store, principal="tool:ci", scope="repo:svc/branch:x") == ["DUE_LATER"]
    assert select(store, principal="tool:ci", scope="") == select(store, principal="tool:ci")


def test_a_malformed_entry_says_why_and_only_it(tmp_path):
    root = write_store(tmp_path / "m", [(at(0), "write", entry("OK")),
                                        (at(1), "write", entry("BAD", attribute="b", authority="high"))])
    loaded = Store(root, warn=False)
    assert 'field "authority"' in entries.malformed(loaded.con, "BAD")
    assert entries.malformed(loaded.con, "OK") is None
    shown = entries.show(loaded.con, "BAD", "here")
    assert (shown["reason"], shown["belief"], shown["rivals"]) == ("malformed", None, [])
    loaded.close()


# -- where a quarantine came from (release) -------------------------------------------------------

def test_release_goes_back_to_the_status_just_before_the_last_quarantine(tmp_path):
    q = entry("Q", status="held", held_reason="secret")
    events = [(at(0), "hold", q), (at(1), "approve", {**q, "status": "active"}),
              (at(2), "quarantine", {**q, "status": "quarantined"})]
    loaded = Store(write_store(tmp_path / "q", events), warn=False)
    rows = loaded.con.execute(sql("quarantine_origin"), {"ids": ["Q"]}).fetchall()
    assert [(memory_id, before) for memory_id, _, before in rows] == [("Q", "active")]   # not held
    loaded.close()


def test_a_batch_holds_an_entry_only_through_its_last_quarantine(tmp_path):
    from inspector.store.append import LogWriter, event_draft
    from inspector.store.logfile import store_paths
    root = write_store(tmp_path / "b", [(at(0), "write", entry("R"))])
    state = entry("R")
    drafts = []
    for batch, op, status in (("b-1", "quarantine", "quarantined"), ("b-r", "release", "active"),
                              ("b-2", "quarantine", "quarantined")):
        after = {**state, "status": status}
        drafts.append(event_draft(op, "R", "operator:a", before=state, after=after, reason="r",
                                  batch=batch))
        state = after
    with LogWriter(store_paths(root)) as writer:
        writer.append(drafts)
    loaded = Store(root, warn=False)

    def members(batches):
        return loaded.con.execute(sql("batch_members"), {"batches": batches}).fetchall()
    assert members(["b-2"]) == [("R", "b-2")]
    assert members(["b-1"]) == []
    origin = loaded.con.execute(sql("quarantine_origin"), {"ids": ["R"]}).fetchall()
    assert [(batch, before) for _, batch, before in origin] == [("b-2", "active")]
    loaded.close()
