"""Long chains of summaries (rolling summaries, or an agent writing them to hurt): the belief
rule, `show` and `scan` judge them in memory that grows with the entries, not with entries x
ancestors. Each store here once needed several GB (a 20,000-deep chain: 19 GB before DuckDB
gave up); the tests cap DuckDB at 500 MB, so a quadratic walk fails them."""

from __future__ import annotations

import pytest

from storegen import entry, write_store
from inspector.store import entries, macros, scan
from inspector.store.load import Store
from inspector.store.queries import sql

AT = "2025-01-01T00:00:00Z"
MEMORY = "500MB"


def _capped(root) -> Store:
    store = Store(root, warn=False)
    store.con.execute(f"SET memory_limit = '{MEMORY}'")
    return store


def _chain(n: int, *, value_of=lambda i: 1, authority_of=lambda i: 5, attribute_of=lambda i: f"a{i}"):
    """C0, an observation; C1..C(n-1) summaries, each citing the one before."""
    events = [(AT, "write", entry("C0", "svc", attribute_of(0), value_of(0), authority=authority_of(0)))]
    for i in range(1, n):
        events.append((AT, "write", entry(f"C{i}", "svc", attribute_of(i), value_of(i), kind="summary",
                                          source="agent:1", authority=authority_of(i),
                                          justification=[f"C{i - 1}"])))
    return events


def _support(store: Store) -> dict[str, tuple[bool, int | None]]:
    macros.whole(store.con)
    rows = store.con.execute("SELECT memory_id, supported, eff_authority FROM support_at(now(), true)")
    return {m: (s, a) for m, s, a in rows.fetchall()}


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    # Authorities 5, except C7 (2) and C15000 (1): the least authority below a summary is its own.
    low = {7: 2, 15000: 1}
    return write_store(tmp_path_factory.mktemp("chain"),
                       _chain(20000, authority_of=lambda i: low.get(i, 5)))


def test_a_chain_of_20000_summaries_is_supported_with_the_least_authority_below_each(chain):
    store = _capped(chain)
    support = _support(store)
    assert len(support) == 19999
    assert all(s for s, _ in support.values())
    assert support["C1"] == (True, 5)
    assert support["C6"] == (True, 5)
    assert support["C7"] == (True, 2)
    assert support["C14999"] == (True, 2)
    assert support["C15000"] == (True, 1)
    assert support["C19999"] == (True, 1)


def test_show_of_the_top_of_the_chain_judges_it_within_the_cap(chain):
    shown = entries.show(_capped(chain).con, "C19999", "the chain store")
    assert (shown["belief"], shown["reason"], shown["why"]) == ("C19999", "belief", "the only candidate")
    assert len(shown["ancestors"]) == 19999
    assert shown["independent_sources"] == ["C0"]


def test_a_summary_whose_far_ancestor_says_otherwise_is_unsupported_and_so_is_all_above_it(tmp_path):
    # One key: C0 observes 1; C1..C9999 summarize 1; C10000..C19999 summarize 2. C10000 rests
    # on C0, an observation of its own key with another value: it is contradicted, and every
    # summary above rests on it.
    root = write_store(tmp_path, _chain(20000, attribute_of=lambda i: "k",
                                        value_of=lambda i: 1 if i < 10000 else 2))
    support = _support(_capped(root))
    assert sum(s for s, _ in support.values()) == 9999
    assert support["C9999"] == (True, 5)
    assert support["C10000"] == (False, None)
    assert support["C19999"] == (False, None)


def test_per_key_summaries_under_a_rolling_summary_are_judged_within_the_cap(tmp_path):
    # Day i: O_i observes key o_i; S_i summarizes it; R_i, the rolling summary, cites S_i and
    # R_(i-1). S5000 says something else than O5000: it is contradicted, and R5000..R9999
    # rest on it. Walking up from every observation of a summarized key would carry each of
    # the 10,000 keys through the whole rolling chain.
    events = []
    for i in range(10000):
        events.append((AT, "write", entry(f"O{i}", "svc", f"o{i}", i)))
        events.append((AT, "write", entry(f"S{i}", "svc", f"o{i}", "other" if i == 5000 else i,
                                          kind="summary", source="agent:1", justification=[f"O{i}"])))
        cites = [f"S{i}"] + ([f"R{i - 1}"] if i else [])
        events.append((AT, "write", entry(f"R{i}", "svc", "rolling", f"day {i}", kind="summary",
                                          source="agent:1", justification=cites)))
    support = _support(_capped(write_store(tmp_path, events)))
    assert len(support) == 20000
    assert sum(s for s, _ in support.values()) == 14999
    assert support["S4999"] == (True, 0) and support["R4999"] == (True, 0)
    assert support["S5000"] == (False, None) and support["R5000"] == (False, None)
    assert support["S5001"] == (True, 0) and support["R9999"] == (False, None)


def test_key_summaries_citing_a_rolling_summary_walk_only_the_keys_that_changed(tmp_path):
    # Day i: O_i observes key k(i % 1000); R_i, the rolling summary, cites O_i and R_(i-1);
    # S_i summarizes O_i's key citing R_i. Every key keeps its value but k0, which O3000
    # changes: S3000, S4000 and S5000 say the new value and rest on O0's old one. Walking
    # down from every key summary would tag the 12,000 chain entries with each of the 1,000
    # keys (15 GB at 20,000 days); only k0's summaries are walked.
    events = []
    for i in range(6000):
        key = f"k{i % 1000}"
        value = f"{key} new" if key == "k0" and i >= 3000 else key
        events.append((AT, "write", entry(f"O{i}", "user", key, value)))
        events.append((AT, "write", entry(f"R{i}", "user", "rolling", f"day {i}", kind="summary",
                                          source="agent:1",
                                          justification=[f"O{i}"] + ([f"R{i - 1}"] if i else []))))
        events.append((AT, "write", entry(f"S{i}", "user", key, value, kind="summary",
                                          source="agent:1", justification=[f"R{i}"])))
    support = _support(_capped(write_store(tmp_path, events)))
    assert len(support) == 12000
    assert sorted(m for m, (s, _) in support.items() if not s) == ["S3000", "S4000", "S5000"]
    assert support["S2000"] == (True, 0) and support["R5999"] == (True, 0)


def test_a_cycle_at_the_top_of_a_long_chain_unsupports_only_the_cycle(tmp_path):
    events = _chain(5000)
    # X and Y cite each other and the chain's top: a cycle resting on a supported chain.
    events.append((AT, "write", entry("X", "svc", "x", 1, kind="summary", source="agent:1",
                                      justification=["C4999", "Y"])))
    events.append((AT, "write", entry("Y", "svc", "y", 1, kind="summary", source="agent:1",
                                      justification=["X"])))
    store = _capped(write_store(tmp_path, events))
    support = _support(store)
    assert support["X"] == (False, None) and support["Y"] == (False, None)
    assert sum(s for s, _ in support.values()) == 4999
    found = scan._cycles(store)
    assert sorted(f.memory_id for f in found) == ["X", "Y"]


def test_scan_finds_single_source_echoes_along_10000_rolling_summaries(tmp_path):
    # R_i cites O0 and R_(i-1): everything R_i rests on traces to one root, O0 (R0 cites one
    # entry only, so it is no echo). A walk over every entry's whole ancestry is quadratic.
    events = [(AT, "write", entry("O0", "svc", "o", 1))]
    for i in range(10000):
        cites = ["O0"] + ([f"R{i - 1}"] if i else [])
        events.append((AT, "write", entry(f"R{i}", "svc", f"r{i}", 1, kind="summary",
                                          source="agent:1", justification=cites)))
    store = _capped(write_store(tmp_path, events))
    echoes = store.con.execute(sql("scan_echo")).fetchall()
    assert len(echoes) == 9999
    assert echoes[0] == ("R1", "O0", ["O0", "R0"])
    assert {source for _, source, _ in echoes} == {"O0"}


def test_rolling_summaries_over_new_observations_are_no_echo(tmp_path):
    # R_i cites O_i and R_(i-1): R_i traces to O0..O_i, two or more roots from R1 on.
    events = []
    for i in range(10000):
        events.append((AT, "write", entry(f"O{i}", "svc", f"o{i}", i)))
        cites = [f"O{i}"] + ([f"R{i - 1}"] if i else [])
        events.append((AT, "write", entry(f"R{i}", "svc", f"r{i}", i, kind="summary",
                                          source="agent:1", justification=cites)))
    store = _capped(write_store(tmp_path, events))
    assert store.con.execute(sql("scan_echo")).fetchall() == []


def test_two_roots_reached_in_the_same_round_are_two_sources(tmp_path):
    # X cites A and B, which cite R1 and R2: X learns of both roots in one round, each from
    # another citer (so a walk that kept only one of what arrives would call X an echo of R1);
    # Y cites A and A2, both over R1: one source, an echo. Support's walk (`seen`) the same:
    # S (of key k, value 1) rests on A and B, which rest on observations of k worth 1 and 2.
    events = [(AT, "write", entry(r, "svc", r.lower(), 1)) for r in ("R1", "R2")]
    events += [(AT, "write", entry(n, "svc", n.lower(), 1, kind="inference", source="agent:1",
                                   justification=[cited]))
               for n, cited in (("A", "R1"), ("A2", "R1"), ("B", "R2"))]
    events += [(AT, "write", entry(n, "svc", n.lower(), 1, kind="inference", source="agent:1",
                                   justification=cited))
               for n, cited in (("X", ["A", "B"]), ("Y", ["A", "A2"]))]
    events += [(AT, "write", entry(o, "doc", "k", v)) for o, v in (("K1", 1), ("K2", 2))]
    events += [(AT, "write", entry(n, "svc", f"m{n}", 1, kind="summary", source="agent:1",
                                   justification=[cited]))
               for n, cited in (("M1", "K1"), ("M2", "K2"))]
    events += [(AT, "write", entry("S", "doc", "k", 1, kind="summary", source="agent:1",
                                   justification=["M1", "M2"])),
               (AT, "write", entry("T", "doc", "k", 1, kind="summary", source="agent:1",
                                   justification=["M1"]))]
    store = _capped(write_store(tmp_path, events))
    echoes = store.con.execute(sql("scan_echo")).fetchall()
    assert [(m, source) for m, source, _ in echoes] == [("Y", "R1")]
    support = _support(store)
    assert support["S"] == (False, None) and support["T"] == (True, 0)
