"""A focused read with DuckDB's memory capped (store/lean.py): the same answer as without the
cap, run once when it fits, run again without the cap when a statement needs more, and the
limit put back either way."""

from __future__ import annotations

import pytest

from storegen import entry, write_store
from inspector.cli import read as read_cli
from inspector.store import entries, lean, lineage
from inspector.store.connection import CONNECTION
from inspector.store.engine import duckdb
from inspector.store.load import Store
from clirun import inspector

AT = "2025-01-01T00:00:00Z"


def _limit(con) -> str:
    return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]


@pytest.fixture
def con():
    return duckdb.connect(":memory:", config=CONNECTION)


# A hash table of 3,000,000 strings: far over 16 MB, and nowhere to spill.
NEEDS_MORE = "SELECT count(DISTINCT i::VARCHAR) FROM range(3000000) t(i)"


def _recording(con, statement: str):
    """A read of `statement`'s one value, and the memory limit in force at each of its runs."""
    seen = []

    def read():
        seen.append(_limit(con))
        return con.execute(statement).fetchone()[0]

    return read, seen


def test_a_read_that_fits_runs_once_under_the_cap_and_the_limit_is_put_back(con):
    before = _limit(con)
    read, seen = _recording(con, "SELECT sum(i) FROM range(1000) t(i)")
    assert lean.capped(con, read, cap=64 << 20) == 499500
    assert seen == ["64.0 MiB"]
    assert _limit(con) == before


def test_a_read_needing_more_than_the_cap_runs_again_without_it(con):
    before = _limit(con)
    read, seen = _recording(con, NEEDS_MORE)
    assert lean.capped(con, read, cap=16 << 20) == 3000000
    assert seen == ["16.0 MiB", before]
    assert _limit(con) == before


def test_a_focused_read_needing_more_than_its_cap_is_tried_at_the_retry_cap_first(con, monkeypatch):
    """A focused read (no cap given) that needs more than CAP runs again at RETRY_CAP, and
    only then uncapped: judging the key at the end of a rolling summary chain 7,564 long
    needs 128-256 MB, and uncapped `show` of it held 943 MB against 346 MB at RETRY_CAP."""
    before = _limit(con)
    monkeypatch.setattr(lean, "CAP", 16 << 20)
    monkeypatch.setattr(lean, "RETRY_CAP", 1 << 30)
    read, seen = _recording(con, NEEDS_MORE)
    assert lean.capped(con, read) == 3000000
    assert seen == ["16.0 MiB", "1.0 GiB"]
    monkeypatch.setattr(lean, "RETRY_CAP", 17 << 20)
    read, seen = _recording(con, NEEDS_MORE)
    assert lean.capped(con, read) == 3000000
    assert seen == ["16.0 MiB", "17.0 MiB", before]
    assert _limit(con) == before


def test_an_error_that_is_not_memory_is_raised_and_the_limit_is_put_back(con):
    before = _limit(con)
    with pytest.raises(duckdb.CatalogException):
        lean.capped(con, lambda: con.execute("SELECT * FROM no_such_table").fetchall(), cap=64 << 20)
    assert _limit(con) == before


def test_a_build_that_fits_is_committed_under_the_cap_and_the_limit_is_put_back(con):
    before = _limit(con)
    con.execute("CREATE TEMP TABLE t (i BIGINT)")
    seen = []

    def build():
        seen.append(_limit(con))
        con.execute("INSERT INTO t SELECT i FROM range(1000) r(i)")
    assert lean.fits(con, build, cap=64 << 20) is True
    assert seen == ["64.0 MiB"] and _limit(con) == before
    assert con.execute("SELECT count(*), sum(i) FROM t").fetchone() == (1000, 499500)


class _Said:
    """A connection that records the statements lean runs through it."""

    def __init__(self, con):
        self.con, self.said = con, []

    def execute(self, statement, *args):
        self.said.append(statement.split(" =")[0])
        return self.con.execute(statement, *args)


def test_a_build_s_commit_runs_with_the_limit_lifted(con):
    """A commit that wrote enough checkpoints the in-memory database, and a checkpoint that
    fails for memory is fatal to the connection: the limit is lifted before the commit."""
    said = _Said(con)
    con.execute("CREATE TEMP TABLE t (i BIGINT)")
    assert lean.fits(said, lambda: said.execute("INSERT INTO t SELECT 1"), cap=64 << 20) is True
    assert said.said == ["SET memory_limit", "BEGIN", "INSERT INTO t SELECT 1",
                         "RESET memory_limit", "COMMIT"]


def test_a_build_needing_more_than_the_cap_is_built_again_without_it(con):
    con.execute("CREATE TEMP TABLE t (n BIGINT)")
    seen = []

    def build():
        seen.append(_limit(con))
        con.execute(f"INSERT INTO t {NEEDS_MORE}")
    before = _limit(con)
    lean.built(con, build, cap=16 << 20)
    assert seen == ["16.0 MiB", before] and _limit(con) == before
    assert con.execute("SELECT n FROM t").fetchall() == [(3000000,)]


def test_a_build_needing_more_than_the_cap_leaves_nothing_and_says_so(con):
    """Its first statement's rows are rolled back with the statement that needed more, so the
    caller can build the same rows again in pieces."""
    before = _limit(con)
    con.execute("CREATE TEMP TABLE t (i BIGINT)")

    def build():
        con.execute("INSERT INTO t SELECT i FROM range(1000) r(i)")
        con.execute(f"INSERT INTO t {NEEDS_MORE}")
    assert lean.fits(con, build, cap=16 << 20) is False
    assert _limit(con) == before
    assert con.execute("SELECT count(*) FROM t").fetchone() == (0,)
    con.execute("BEGIN")            # no transaction was left open
    con.execute("ROLLBACK")


def test_a_build_failing_otherwise_is_rolled_back_and_raised(con):
    before = _limit(con)
    con.execute("CREATE TEMP TABLE t (i BIGINT)")

    def build():
        con.execute("INSERT INTO t SELECT i FROM range(10) r(i)")
        con.execute("SELECT * FROM no_such_table")
    with pytest.raises(duckdb.CatalogException):
        lean.fits(con, build, cap=64 << 20)
    assert _limit(con) == before
    assert con.execute("SELECT count(*) FROM t").fetchone() == (0,)


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    """C0 observes; C1..C2999 summarize the one before, all of one key (so `show` judges
    3,000 rivals and walks 3,000 ancestors)."""
    events = [(AT, "write", entry("C0", "svc", "k", "v"))]
    for i in range(1, 3000):
        events.append((AT, "write", entry(f"C{i}", "svc", "k", "v", kind="summary", source="agent:1",
                                          justification=[f"C{i - 1}"])))
    return write_store(tmp_path_factory.mktemp("lean"), events)


def _used(con) -> int:
    return con.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()[0]


def test_show_of_a_deep_chain_under_a_cap_too_small_for_it_equals_the_uncapped_answer(chain):
    store = Store(chain, warn=False)
    free = entries.show(store.con, "C2999", "s")
    before = _limit(store.con)
    runs = []

    def read():
        runs.append(_limit(store.con))
        return entries.show(store.con, "C2999", "s")

    # Half a MB over what the store's tables hold: the cap is taken, and judging 3,000 rivals
    # needs more.
    assert lean.capped(store.con, read, cap=_used(store.con) + (512 << 10)) == free
    assert len(runs) == 2 and runs[0] != before and runs[1] == before
    assert free["ancestors"][:2] == ["C0", "C1"] and len(free["ancestors"]) == 2999
    # One time for all: recency ties, and the greatest id wins (C999 > C2999 as text).
    assert (free["belief"], free["reason"]) == ("C999", "outranked:recency")
    # The run that failed left nothing behind: judged_now rolled its transaction back.
    assert store.con.execute("SELECT count(*) FROM judged").fetchone()[0] == 0
    assert lineage.lineage(store.con, "C1").descendants == sorted(f"C{i}" for i in range(2, 3000))


def test_a_cap_below_what_the_tables_already_hold_is_not_taken_and_the_read_runs_once(con):
    con.execute("CREATE TABLE held_here AS SELECT i::VARCHAR AS s FROM range(1000000) t(i)")
    before = _limit(con)
    read, runs = _recording(con, "SELECT count(*) FROM held_here")
    assert lean.capped(con, read, cap=1 << 20) == 1000000
    assert runs == [before]
    assert _limit(con) == before


@pytest.mark.parametrize("args", [("show", "C2999"), ("lineage", "C1500"), ("held",)])
def test_the_commands_answer_the_same_under_a_cap_they_need_more_than(chain, monkeypatch, args):
    free = inspector(args[0], chain, *args[1:], "--json")
    tight_cap = _used(Store(chain, warn=False).con) + (512 << 10)
    monkeypatch.setattr(lean, "CAP", tight_cap)
    monkeypatch.setattr(entries, "HELD_CAP", tight_cap)     # held pages under its own cap
    tight = inspector(args[0], chain, *args[1:], "--json")
    assert (tight.code, free.code) == (0, 0)
    assert tight.json == free.json
    assert read_cli.capped is lean.capped       # the command reads through the cap


class _ResetFailsAtFirst:
    """A connection whose first `failures` RESETs fail for memory, as DuckDB's did while the
    threads of a read that just failed were still giving its memory back."""

    def __init__(self, con, failures: int):
        self.con, self.failures, self.resets = con, failures, 0

    def execute(self, statement, *args):
        if statement.startswith("RESET"):
            self.resets += 1
            if self.resets <= self.failures:
                raise duckdb.OutOfMemoryException("failed to allocate data of size 4.0 KiB")
        return self.con.execute(statement, *args)


def test_a_reset_that_fails_for_memory_is_tried_again_and_the_read_runs_again(con, monkeypatch):
    monkeypatch.setattr(lean.time, "sleep", lambda _: None)
    before = _limit(con)
    slow = _ResetFailsAtFirst(con, failures=3)
    read, seen = _recording(con, NEEDS_MORE)
    assert lean.capped(slow, read, cap=16 << 20) == 3000000
    assert seen == ["16.0 MiB", before]
    assert slow.resets == 4 and _limit(con) == before


def test_a_reset_that_never_gets_memory_is_raised_not_swallowed(con, monkeypatch):
    monkeypatch.setattr(lean.time, "sleep", lambda _: None)
    stuck = _ResetFailsAtFirst(con, failures=10 ** 6)
    with pytest.raises(duckdb.OutOfMemoryException):
        lean.capped(stuck, lambda: con.execute("SELECT 1").fetchone()[0], cap=16 << 20)
    assert stuck.resets == lean.LIFT_TRIES


def test_scan_reads_under_the_cap_and_the_tui_s_scan_does_not(sample, monkeypatch):
    """DuckDB keeps every block of the view it reads unless capped (1.4 GB at 5M long values;
    the rules after the texts, uncapped, took `scan --json` to 777 MB at 5M events). A
    command's scan reads the summaries' support, the lineage rules, the texts and the late
    rules each under lean.CAP (judging every key caps on its own); the TUI's does not."""
    from inspector.store import scan as scan_mod
    store = Store(sample("incident-afternoon"), warn=False)     # a pii.no_subject: a text finding
    limits = []
    real = lean.capped

    def recording(con, read, cap=None):
        def noted():
            limits.append((cap, con.execute("SELECT current_setting('memory_limit')").fetchone()[0]))
            return read()
        return real(con, noted, cap)
    monkeypatch.setattr(lean, "capped", recording)
    in_tui = scan_mod.scan(store, keep_view=True, cap=lean.WHOLE_CAP)
    assert limits == []
    alone = scan_mod.scan(store, cap=lean.WHOLE_CAP)
    assert limits == [(None, "128.0 MiB")] * 4
    assert alone == in_tui and "pii.no_subject" in {f.rule for f in alone}
