"""The support walk run a part at a time (store/stepwise.py) fills `support` with the rows the
one-statement macro gives, leaves none of its parts behind (also when a part fails), and under
a memory cap judges the same beliefs as without one."""

from __future__ import annotations

import random

import pytest

from storegen import entry, write_store
from inspector.store import beliefs, lean, macros, stepwise
from inspector.store.engine import duckdb
from inspector.store.load import Store

AT = "2025-01-01T00:00:00Z"


def _store_with_summaries(root, seed: int):
    """Observations of a few keys (some keys with two values), summaries citing them and each
    other (chains, a cycle, an id the store lacks, a retracted observation): every way
    `support_at` can end."""
    rng = random.Random(seed)
    events, ids = [], []
    for i in range(40):
        key = f"k{i % 6}"
        events.append((AT, "write", entry(f"O{i}", "svc", key, rng.choice(["a", "b"]),
                                          authority=rng.randint(1, 5))))
        ids.append((f"O{i}", key))
    for i in range(40):
        key = f"k{i % 6}"
        cites = [rng.choice(ids)[0] for _ in range(rng.randint(0, 3))]
        if i and rng.random() < 0.5:
            cites.append(f"S{rng.randrange(i)}")
        if rng.random() < 0.1:
            cites.append("MISSING")
        if rng.random() < 0.1:
            cites.append(f"S{i + 1}")               # cites a later one: cycles can form
        events.append((AT, "write", entry(f"S{i}", "svc", key, rng.choice(["a", "b"]), kind="summary",
                                          source="agent:1", justification=cites)))
        ids.append((f"S{i}", key))
    events.append((AT, "retract", {**entry("O0", "svc", "k0", "a"), "status": "retracted"}))
    return write_store(root, events)


def _support(con) -> list[tuple]:
    return sorted(con.execute("SELECT * FROM support").fetchall())


def _temporary(con) -> list[str]:
    return [n for (n,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()]


@pytest.mark.parametrize("seed", range(6))
def test_stepwise_fills_support_with_the_macros_rows_and_leaves_no_part(tmp_path, seed):
    store = Store(_store_with_summaries(tmp_path / "s", seed))
    con = store.con
    tk = con.execute('SELECT max("at") FROM versions').fetchone()[0]
    macros.sql(con, "macro_support_at")                 # the macro in one statement: the reference
    con.execute("CREATE OR REPLACE TABLE support AS SELECT * FROM support_at($tk, $now)",
                {"tk": tk, "now": True})
    whole = _support(con)
    assert len(whole) == 40 and {s for _, s, _ in whole} == {True, False}
    con.execute("DELETE FROM support")
    stepwise.materialize(con, tk, True)
    assert _support(con) == whole
    assert _temporary(con) == []


def test_the_parts_are_the_macros_and_each_is_dropped_after_its_last_use():
    parts, fill = stepwise.parts()
    names = [p.name for p in parts]
    assert names == ["summ", "edge", "cited", "keyed", "cite", "cite_ok", "torn", "vals", "ids",
                     "iedge", "seed", "tsumm", "local_bad", "sedge", "obs_floor", "waits",
                     "citers", "done", "alone", "below", "cited_by", "seen", "contradicted",
                     "fall"]
    dropped = [n for p in parts for n in p.drop_after]
    assert sorted(dropped) == sorted(set(names) - {"summ", "alone", "fall"})   # the last statement's
    assert fill.startswith("CREATE OR REPLACE TABLE support AS SELECT s.memory_id")
    # the store's state is read by the first four parts only, each keeping what it needs
    assert [p.name for p in parts if "$tk" in p.sql] == ["summ", "edge", "cited", "keyed"]
    assert all("state_at($tk, $now)" in p.sql for p in parts[:4])


def test_a_part_that_fails_leaves_none_behind(tmp_path, monkeypatch):
    store = Store(_store_with_summaries(tmp_path / "s", 0))
    parts, fill = stepwise.parts()
    broken = list(parts)
    at = [p.name for p in parts].index("seen")
    broken[at] = stepwise.Part("seen", "CREATE OR REPLACE TEMP TABLE seen AS SELECT * FROM nowhere", ())
    monkeypatch.setattr(stepwise, "parts", lambda: (tuple(broken), fill))
    with pytest.raises(duckdb.CatalogException):
        stepwise.materialize(store.con, None, True)
    assert _temporary(store.con) == []


def test_a_part_named_like_a_table_of_the_store_is_refused(tmp_path):
    store = Store(_store_with_summaries(tmp_path / "s", 0))
    store.con.execute("CREATE TABLE seed (x INTEGER)")
    with pytest.raises(AssertionError, match=r"\['seed'\]"):
        stepwise.materialize(store.con, None, True)


def test_beliefs_under_a_cap_that_forces_retries_equal_those_without(tmp_path, monkeypatch):
    """A cap just over what the store's tables hold: some ranges need more and are built again
    a piece at a time, and some pieces again without the cap; every row is the same, in the
    same order."""
    store = Store(_store_with_summaries(tmp_path / "s", 3))
    spec = beliefs.ViewSpec(None, beliefs.Moment.resolve())
    plain = list(beliefs.each_belief_of(store.con, spec))
    assert len(plain) == 6
    # pieces of 7 entries: a piece a key (13-14 entries each), ranges of four pieces
    monkeypatch.setattr(beliefs, "LEAN_PART_ENTRIES", 28)
    monkeypatch.setattr(beliefs, "LEAN_SPLIT", 4)
    runs, whole = [], []
    real, real_fits = lean.built, lean.fits

    def counting(con, build, cap):
        runs.append(0)

        def counted():
            runs[-1] += 1
            return build()
        return real(con, counted, cap)

    def fitting(con, build, cap):
        whole.append(real_fits(con, build, cap))
        return whole[-1]

    monkeypatch.setattr(lean, "built", counting)
    monkeypatch.setattr(lean, "fits", fitting)
    assert list(beliefs.each_belief_of(store.con, spec, cap=1 << 30)) == plain
    # the support walk (built: fits once); two ranges (4 + 2 keys), each fits whole
    assert runs == [1] and whole == [True, True, True]
    runs.clear()
    whole.clear()
    used = store.con.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()[0]
    assert list(beliefs.each_belief_of(store.con, spec, cap=used + (256 << 10))) == plain
    # a range that did not fit went again a half at a time (each half tried as a range, or a
    # piece, once or twice)
    assert False in whole and whole[0] is not None and set(runs) <= {1, 2}


def test_a_range_over_the_cap_is_built_a_half_at_a_time_with_the_same_rows(tmp_path, monkeypatch):
    """Every range that does not fit the cap (here: each is made to fail for memory after
    its statements ran) is rolled back and built again a half at a time, down to a piece: the
    rows, each piece's numbered on from the pieces before, are the range's."""
    store = Store(_store_with_summaries(tmp_path / "s", 3))
    spec = beliefs.ViewSpec(None, beliefs.Moment.resolve())
    plain = list(beliefs.each_belief_of(store.con, spec))
    monkeypatch.setattr(beliefs, "LEAN_PART_ENTRIES", 28)     # a piece a key, four to a range
    monkeypatch.setattr(beliefs, "LEAN_SPLIT", 4)
    tried, pieces = [], []
    real_fits = lean.fits

    def over(con, build, cap):
        def needs_more():
            build()
            tried.append(con.execute("SELECT count(DISTINCT (entity, attribute)) FROM judged").fetchone()[0])
            raise duckdb.OutOfMemoryException("made to need more")
        return real_fits(con, needs_more, cap)

    def piece(con, build, cap):          # the walk, or a piece: built once (as if it fitted)
        build()
        pieces.append(con.execute("SELECT count(DISTINCT (entity, attribute)) FROM judged").fetchone()[0])
    monkeypatch.setattr(lean, "fits", over)
    monkeypatch.setattr(lean, "built", piece)
    assert list(beliefs.each_belief_of(store.con, spec, cap=1 << 30)) == plain
    assert [r["pos"] for r in plain] == [1, 2, 3, 4, 5, 6]
    # keys in `judged` at each try's failure: 4 (range 1), 2 (its first half), 2 (its second
    # half: a piece, a half or a range judges its own keys alone), 2 (range 2); after each
    # piece, its one key
    assert tried == [4, 2, 2, 2]
    assert pieces == [0, 1, 1, 1, 1, 1, 1]       # the walk (no judged rows), then six pieces
