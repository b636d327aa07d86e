"""A judgement of a few keys reads their entries' versions through the view's memory_id index,
however many entries those keys have (connection.id_lists): past DuckDB's default of 50 values a
join's build side became a Bloom filter over a scan of every version, 1.45 s at 5M events for
the first catch-up after a TUI launch."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pytest

from storegen import entry, write_store
from inspector.store import beliefs as B, connection as C
from inspector.store.append import LogWriter, event_draft
from inspector.store.load import Store
from inspector.store.queries import sql

ENTRIES = 120          # more than DuckDB's 50: a Bloom filter without id_lists
FILLS = ("focus_version_rows_fill", "focus_version_rows_private")


def setting(con) -> int:
    return int(con.execute("SELECT current_setting('dynamic_or_filter_threshold')").fetchone()[0])


def test_id_lists_sets_its_own_connection_alone_and_puts_it_back():
    con = duckdb.connect()
    other = con.cursor()
    with C.id_lists(con):
        assert (setting(con), setting(other)) == (C.ID_LIST_MAX, 50)
        with C.id_lists(con):                                   # nested: the outer stays
            assert setting(con) == C.ID_LIST_MAX
        assert setting(con) == C.ID_LIST_MAX
    assert (setting(con), setting(other)) == (50, 50)


def test_id_lists_lets_the_first_error_through_from_an_aborted_transaction():
    con = duckdb.connect()
    con.execute("BEGIN")
    with pytest.raises(duckdb.CatalogException, match="no_such_table"):
        with C.id_lists(con):
            con.execute("SELECT * FROM no_such_table")          # SET is refused after this
    con.execute("ROLLBACK")
    assert setting(con) == C.ID_LIST_MAX        # left raised (a knob of speed, not of answers)
    with duckdb.connect() as fresh:
        fresh.execute("BEGIN")
        with pytest.raises(ValueError, match="a failure in Python"):
            with C.id_lists(fresh):
                raise ValueError("a failure in Python")         # the transaction stands
        assert setting(fresh) == 50


class Spy:
    """A connection whose version fills are profiled: how each read base.versions."""

    def __init__(self, con, out: Path) -> None:
        self.con, self.out, self.reads = con, out, []

    def execute(self, query, *args, **kwargs):
        if query not in {sql(name) for name in FILLS}:
            return self.con.execute(query, *args, **kwargs)
        self.con.execute("PRAGMA enable_profiling = 'json'")
        self.con.execute(f"PRAGMA profiling_output = '{self.out}'")
        self.con.execute(query, *args, **kwargs)
        self.con.execute("PRAGMA disable_profiling")
        self.reads.append(scan_of(json.loads(self.out.read_text()), "base.main.versions"))
        return self

    def __getattr__(self, name):
        return getattr(self.con, name)


def scan_of(node: dict, table: str) -> str | None:
    """The scan type of `table` in a JSON profile."""
    if (node.get("extra_info") or {}).get("Table") == table:
        return node["extra_info"]["Type"]
    for child in node.get("operator", []) + node.get("children", []):
        found = scan_of(child, table)
        if found:
            return found
    return None


@pytest.fixture
def viewed(tmp_path) -> Path:
    """ENTRIES entries of one key, in the view (a second open reads them from base.*)."""
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry(f"K{i:03}", entity="u", attribute="city",
                                                  value=f"c{i}", source=f"tool:{i}"))
        for i in range(ENTRIES)])
    Store(root, warn=False).close()                          # cold: writes the view
    return root


TK = datetime(2025, 6, 1, tzinfo=timezone.utc)


def test_a_private_judgement_of_a_key_reads_its_versions_by_index(viewed, tmp_path):
    s = Store(viewed, warn=False)
    assert s.con.execute("SELECT count(*) FROM base.versions").fetchone() == (ENTRIES,)
    spy = Spy(s.con, tmp_path / "profile.json")
    B.judge_keys(spy, TK, [("u", "city")], private=True)
    assert spy.reads == ["Index Scan"]
    assert s.con.execute("SELECT count(*) FROM focus_version_rows").fetchone() == (ENTRIES,)
    assert setting(s.con) == 50
    # The same statement outside id_lists: the scan this replaces (so the test can fail).
    spy.execute(sql("focus_version_rows_private"))
    assert spy.reads == ["Index Scan", "Sequential Scan"]
    s.close()


def test_a_belief_patch_reads_the_versions_of_the_keys_it_judges_by_index(viewed, tmp_path):
    s = Store(viewed, warn=False)
    spec = B.ViewSpec(None, B.Moment(TK, TK))
    B.materialize(s.con, spec)
    with LogWriter(s.paths) as writer:
        writer.append([event_draft("write", "NEW", "agent:9", after=entry(
            "NEW", entity="u", attribute="city", value="new", source="tool:new"))])
    s.refresh()
    spy = Spy(s.con, tmp_path / "profile.json")
    later = datetime.now(timezone.utc)
    count = B.patch(spy, B.ViewSpec(None, B.Moment(later, later)), TK, ["NEW"])
    assert spy.reads == ["Index Scan"]
    assert count == B.materialize(s.con, B.ViewSpec(None, B.Moment(later, later))) == 1
    assert setting(s.con) == 50
    s.close()
