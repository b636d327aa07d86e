"""The order of the belief rule (DESIGN §3.3): (effective authority, scope depth, observed_at,
id), each deciding once on a store built so that any other order picks another winner — in the
belief table (beliefs_in), in the reasons of the rivals, and in the order rivals are listed."""

from __future__ import annotations

import pytest

from storegen import entry, write_store
from inspector.store import beliefs as B
from inspector.store.entries import judged_now
from inspector.store.load import Store
from inspector.store.model import parse_time

NOW = B.Moment(tk=parse_time("2025-02-01T00:00:00Z"), tv=parse_time("2025-02-01T00:00:00Z"))
HOME = "t:a/u:1"


def day(n: int) -> str:
    return f"2025-01-0{n}T00:00:00Z"


ENTRIES = [
    # authority beats depth: A1 is broader but stronger; A2 is newer, narrower and weaker
    entry("A1", attribute="authority", value="broad", scope="t:a", authority=2, observed_at=day(1)),
    entry("A2", attribute="authority", value="narrow", scope=HOME, authority=1, observed_at=day(2),
          source="tool:b"),
    # depth beats recency: B1 is narrower, B2 newer, both at authority 1
    entry("B1", attribute="depth", value="narrow", scope=HOME, authority=1, observed_at=day(1)),
    entry("B2", attribute="depth", value="broad", scope="t:a", authority=1, observed_at=day(3)),
    # recency beats the id: C1 is newer, C9 has the greater id (another principal: contested)
    entry("C1", attribute="recency", value="new", scope="t:a", authority=1, observed_at=day(3)),
    entry("C9", attribute="recency", value="old", scope="t:a", authority=1, observed_at=day(1),
          source="web:x"),
    # the id breaks a full tie: the greater id wins
    entry("D1", attribute="tie", value="same", scope="t:a", authority=1, observed_at=day(2)),
    entry("D2", attribute="tie", value="same", scope="t:a", authority=1, observed_at=day(2)),
    # a summary is no stronger than its weakest support: S (own authority 3, citing an
    # authority-1 observation) loses to O2 at authority 2
    entry("O1", attribute="support", value="seen", scope="t:a", authority=1, observed_at=day(1)),
    entry("S", attribute="floor", value="summed", kind="summary", scope="t:a", authority=3,
          observed_at=day(2), justification=["O1"], source="agent:9"),
    entry("O2", attribute="floor", value="observed", scope="t:a", authority=2, observed_at=day(1)),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = write_store(tmp_path_factory.mktemp("order") / "s",
                       [("2025-01-09T00:00:00Z", "write", e) for e in ENTRIES])
    loaded = Store(root, warn=False)
    yield loaded
    loaded.close()


def table(store, context):
    B.materialize(store.con, B.ViewSpec(context, NOW))
    return {(r["scope"], r["attribute"]): (r["memory_id"], r["candidates"], r["authority"],
                                           sorted(r["markers"]))
            for r in B.all_beliefs(store.con)}


def test_each_key_of_the_order_decides_in_the_belief_table(store):
    assert table(store, HOME) == {
        (HOME, "authority"): ("A1", 2, 2, ["vetoed_newer"]),
        (HOME, "depth"): ("B1", 2, 1, []),
        (HOME, "recency"): ("C1", 2, 1, ["contested"]),
        (HOME, "tie"): ("D2", 2, 1, []),
        (HOME, "support"): ("O1", 1, 1, []),
        (HOME, "floor"): ("O2", 2, 2, ["vetoed_newer"]),   # S is newer and weaker
    }


def test_the_store_wide_table_answers_each_scope(store):
    assert table(store, None) == {
        ("t:a", "authority"): ("A1", 1, 2, []),
        (HOME, "authority"): ("A1", 2, 2, ["vetoed_newer"]),
        ("t:a", "depth"): ("B2", 1, 1, []),
        (HOME, "depth"): ("B1", 2, 1, []),
        ("t:a", "recency"): ("C1", 2, 1, ["contested"]),
        ("t:a", "tie"): ("D2", 2, 1, []),
        ("t:a", "support"): ("O1", 1, 1, []),
        ("t:a", "floor"): ("O2", 2, 2, ["vetoed_newer"]),
    }


@pytest.mark.parametrize("attribute, expected", [
    ("authority", [("A1", "belief", 2), ("A2", "outranked:authority", 1)]),
    ("depth", [("B1", "belief", 1), ("B2", "outranked:scope", 1)]),
    ("recency", [("C1", "belief", 1), ("C9", "outranked:recency", 1)]),
    ("tie", [("D2", "belief", 1), ("D1", "outranked:recency", 1)]),
    ("floor", [("O2", "belief", 2), ("S", "outranked:authority", 1)]),
])
def test_rivals_give_the_reason_the_order_decides(store, attribute, expected):
    spec = B.ViewSpec(HOME, NOW)
    with judged_now(store.con, ("e", attribute), spec):
        rows = B.rivals(store.con, spec, "e", attribute, HOME)
    assert [(r["memory_id"], r["reason"], r["authority"]) for r in rows] == expected


def test_rivals_are_listed_winner_first_then_by_the_order(store):
    # Three candidates and one non-candidate; the listing follows the rule's order.
    extra = [entry("R1", attribute="list", value=1, scope="t:a", authority=1, observed_at=day(3)),
             entry("R2", attribute="list", value=2, scope=HOME, authority=1, observed_at=day(1)),
             entry("R3", attribute="list", value=3, scope="t:a", authority=2, observed_at=day(1)),
             entry("R4", attribute="list", value=4, scope="t:a", authority=1, observed_at=day(2)),
             entry("R5", attribute="list", value=5, scope="t:b", authority=3, observed_at=day(4))]
    root = write_store(store.root.parent / "listing", [("2025-01-09T00:00:00Z", "write", e) for e in extra])
    other = Store(root, warn=False)
    spec = B.ViewSpec(HOME, NOW)
    with judged_now(other.con, ("e", "list"), spec):
        rows = B.rivals(other.con, spec, "e", "list", HOME)
    assert [(r["memory_id"], r["reason"]) for r in rows] == [
        ("R3", "belief"), ("R5", "out_of_scope"), ("R2", "outranked:authority"),
        ("R1", "outranked:authority"), ("R4", "outranked:authority")]
    other.close()


def test_rivals_tied_on_every_part_are_listed_by_descending_id(store):
    ties = [entry(f"T{i}", attribute="ties", value=i, scope="t:a", authority=1, observed_at=day(2))
            for i in (3, 1, 2)] + [entry("T9", attribute="ties", value=9, scope="t:a", authority=2,
                                         observed_at=day(1))]
    root = write_store(store.root.parent / "ties", [("2025-01-09T00:00:00Z", "write", e) for e in ties])
    other = Store(root, warn=False)
    spec = B.ViewSpec("t:a", NOW)
    with judged_now(other.con, ("e", "ties"), spec):
        rows = B.rivals(other.con, spec, "e", "ties", "t:a")
    assert [(r["memory_id"], r["reason"]) for r in rows] == [
        ("T9", "belief"), ("T3", "outranked:authority"), ("T2", "outranked:authority"),
        ("T1", "outranked:authority")]
    other.close()


def test_conflicts_are_listed_by_entity_attribute_scope_and_marker(store):
    def contest(eid, entity, attribute, scope, source, value):
        return entry(eid, entity=entity, attribute=attribute, value=value, scope=scope, authority=1,
                     observed_at=day(1), source=source)
    marked = [contest("X1", "e", "b", "t:a", "tool:a", 1), contest("X2", "e", "b", "t:a", "web:b", 2),
              contest("Y1", "e", "a", "t:b", "tool:a", 1), contest("Y2", "e", "a", "t:b", "web:b", 2),
              entry("Y4", attribute="a", value=4, scope="t:b", kind="claim", observed_at=day(1)),
              entry("Y3", attribute="a", value=3, scope="t:b", kind="claim", observed_at=day(1)),
              entry("Y6", attribute="a", value=6, scope="t:b", kind="inference", observed_at=day(1)),
              entry("Y5", attribute="a", value=5, scope="", kind="inference", observed_at=day(1)),
              contest("Z1", "d", "z", "t:c", "tool:a", 1), contest("Z2", "d", "z", "t:c", "web:b", 2)]
    root = write_store(store.root.parent / "conflicts", [("2025-01-09T00:00:00Z", "write", e)
                                                          for e in marked])
    other = Store(root, warn=False)
    B.materialize(other.con, B.ViewSpec(None, NOW))
    assert [(c["entity"], c["attribute"], c["scope"], c["marker"], c["memory_ids"])
            for c in B.conflicts(other.con)] == [
        ("d", "z", "t:c", "contested", ["Z2", "Z1"]),
        ("e", "a", "t:b", "claim_disagrees", ["Y2", "Y3", "Y4"]),      # causes sorted by id
        ("e", "a", "t:b", "contested", ["Y2", "Y1"]),
        ("e", "a", "t:b", "inference_disagrees", ["Y2", "Y5", "Y6"]),
        ("e", "b", "t:a", "contested", ["X2", "X1"])]
    other.close()


def test_vetoed_newer_needs_a_strictly_newer_weaker_candidate(store):
    veto = [entry("V1", attribute="veto", value="a", scope="t:a", authority=2, observed_at=day(2)),
            entry("V2", attribute="veto", value="b", scope="t:a", authority=1, observed_at=day(2)),
            entry("V3", attribute="veto", value="c", scope="t:a", authority=1, observed_at=day(3)),
            entry("V4", attribute="veto", value="a", scope="t:a", authority=1, observed_at=day(4))]
    root = write_store(store.root.parent / "veto", [("2025-01-09T00:00:00Z", "write", e) for e in veto])
    other = Store(root, warn=False)
    B.materialize(other.con, B.ViewSpec(None, NOW))
    [row] = B.all_beliefs(other.con)
    # V2 is as old as the belief, V4 newer but of the same value: only V3 is vetoed
    assert (row["memory_id"], list(row["markers"]), list(row["vetoed_ids"])) == (
        "V1", ["vetoed_newer"], ["V3"])
    other.close()


def test_only_live_claims_valid_now_disagree(store):
    def claim(eid, **kw):
        return entry(eid, attribute="said", scope="t:a", kind="claim", observed_at=day(1),
                     **{"value": eid, **kw})
    said = [entry("W", attribute="said", value="truth", scope="t:a", authority=1, observed_at=day(1)),
            claim("CL_ACTIVE"), claim("CL_HELD"), claim("CL_GONE"), claim("CL_QUARANTINED"),
            claim("CL_ENDED", valid_to="2025-01-20T00:00:00Z"),
            claim("CL_ENDS_NOW", valid_to="2025-02-01T00:00:00Z"),        # tv is 2025-02-01
            claim("CL_LATER", valid_from="2025-03-01T00:00:00Z"),
            claim("CL_SAME", value="truth")]                              # agrees
    events = [("2025-01-09T00:00:00Z", "write", e) for e in said]
    events += [("2025-01-10T00:00:00Z", op, {**e, "status": status}) for e, op, status in (
        (said[2], "hold", "held"), (said[3], "retract", "retracted"),
        (said[4], "quarantine", "quarantined"))]
    root = write_store(store.root.parent / "said", events)
    other = Store(root, warn=False)
    B.materialize(other.con, B.ViewSpec(None, NOW))
    [row] = B.all_beliefs(other.con)
    assert (row["memory_id"], list(row["markers"]), list(row["claim_ids"])) == (
        "W", ["claim_disagrees"], ["CL_ACTIVE", "CL_HELD"])
    other.close()


def test_a_broader_row_names_the_narrower_scopes_another_entry_wins(store):
    B.materialize(store.con, B.ViewSpec(None, NOW))
    overridden = {(r["scope"], r["attribute"]): list(r["overridden_in"]) for r in B.all_beliefs(store.con)}
    assert overridden[("t:a", "depth")] == [HOME]        # B1 wins the narrower row
    assert overridden[("t:a", "authority")] == []        # A1 wins both rows: nothing overridden
    assert overridden[(HOME, "depth")] == []


def test_conflicts_of_one_key_are_listed_by_scope_before_marker(store):
    # t:a holds one marker (contested), t:a/u:1 two (claim_disagrees, contested): the scope
    # orders them before the marker does
    same_key = [entry("K1", attribute="k", value=1, scope="t:a", authority=1, observed_at=day(1)),
                entry("K2", attribute="k", value=2, scope="t:a", authority=1, observed_at=day(1),
                      source="web:b"),
                entry("K3", attribute="k", value=3, scope=HOME, kind="claim", observed_at=day(1))]
    root = write_store(store.root.parent / "one-key", [("2025-01-09T00:00:00Z", "write", e)
                                                        for e in same_key])
    other = Store(root, warn=False)
    B.materialize(other.con, B.ViewSpec(None, NOW))
    assert [(c["scope"], c["marker"], c["memory_ids"]) for c in B.conflicts(other.con)] == [
        ("t:a", "contested", ["K2", "K1"]),
        (HOME, "claim_disagrees", ["K2", "K3"]),
        (HOME, "contested", ["K2", "K1"])]
    other.close()


def _judged(con) -> list[str]:
    return [r[0] for r in con.execute("SELECT memory_id FROM judged ORDER BY memory_id").fetchall()]


def test_a_reader_judges_a_key_in_tables_of_its_own_while_a_writer_replaces_the_shared_ones(store):
    """The TUI's detail pane judges its key while another thread rebuilds or patches the shared
    tables, with no lock: judged_now fills the reader's own TEMP tables, which hide the shared
    ones from it alone; neither sees the other's rows, and the shared ones are as the writer
    left them."""
    spec = B.ViewSpec(HOME, NOW)
    B.judge_keys(store.con, NOW.tk, [("e", "tie")])
    reader = store.con.cursor()
    with judged_now(reader, ("e", "authority"), spec):
        assert _judged(reader) == ["A1", "A2"] and _judged(store.con) == ["D1", "D2"]
        B.judge_keys(store.con, NOW.tk, [("e", "depth")])       # the writer, meanwhile
        rows = B.rivals(reader, spec, "e", "authority", HOME)
        assert _judged(reader) == ["A1", "A2"] and _judged(store.con) == ["B1", "B2"]
    assert [(r["memory_id"], r["reason"]) for r in rows] == [("A1", "belief"),
                                                             ("A2", "outranked:authority")]
    assert _judged(reader) == _judged(store.con) == ["B1", "B2"]
    assert reader.execute("FROM focus_keys").fetchall() == [("e", "depth")]
    assert reader.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchone()[0] == 0
