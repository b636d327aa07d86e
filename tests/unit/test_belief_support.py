"""When a summary is supported, and how strong it is (DESIGN §3.2): each rule of support on its
own summary, so that dropping any one condition of the SQL changes an answer here."""

from __future__ import annotations

import pytest

from storegen import entry, write_store
from inspector.store import beliefs as B
from inspector.store.entries import judged_now
from inspector.store import stepwise
from inspector.store.queries import sql
from inspector.store.load import Store
from inspector.store.model import parse_time

NOW = B.Moment(tk=parse_time("2025-02-01T00:00:00Z"), tv=parse_time("2025-02-01T00:00:00Z"))
AT = "2025-01-01T00:00:00Z"


def obs(eid, **kw):
    return entry(eid, attribute=f"src_{eid.lower()}", value=eid, scope="t:a", **{"authority": 3, **kw})


def summary(eid, cites, **kw):
    return entry(eid, attribute=f"sum_{eid.lower()}", value=f"from {cites}", kind="summary",
                 scope=kw.pop("scope", "t:a"), authority=kw.pop("authority", 5),
                 justification=cites, source="agent:1", **kw)


SOURCES = [
    obs("O1"), obs("O2", authority=1),
    entry("C1", attribute="src_c1", value="c", kind="claim", scope="t:a"),
    entry("I1", attribute="src_i1", value="i", kind="inference", scope="t:a"),
    obs("Q1"),                                              # quarantined below
    entry("N1", attribute="src_n1", value="n", scope="t:a/u:1", authority=3),   # narrower
    entry("B1", attribute="src_b1", value="b", scope="t:b", authority=3),       # elsewhere
    obs("O3"), obs("O4", justification=["O3"]),     # O4: of a key no summary has, citing O3
]
SUMMARIES = {
    "S_OK": (summary("S_OK", ["O1"]), True, 3),
    "S_TWO": (summary("S_TWO", ["O1", "O2"]), True, 1),          # the weakest support decides
    "S_OWN": (summary("S_OWN", ["O1"], authority=2), True, 2),   # its own authority, if lower
    "S_CHAIN": (summary("S_CHAIN", ["S_TWO"]), True, 1),         # through a supported summary
    "S_ON_OWN": (summary("S_ON_OWN", ["S_OWN"]), True, 2),       # the weakest summary on the way
    "S_NONE": (summary("S_NONE", []), False, None),
    "S_CLAIM": (summary("S_CLAIM", ["C1"]), False, None),
    "S_INFERENCE": (summary("S_INFERENCE", ["I1"]), False, None),
    "S_QUARANTINED": (summary("S_QUARANTINED", ["Q1"]), False, None),
    "S_DANGLING": (summary("S_DANGLING", ["O1", "GONE"]), False, None),
    "S_NARROWER": (summary("S_NARROWER", ["N1"]), False, None),  # N1 is not visible from t:a
    "S_ELSEWHERE": (summary("S_ELSEWHERE", ["B1"]), False, None),
    "S_DEEP_OK": (summary("S_DEEP_OK", ["N1"], scope="t:a/u:1/p:x"), True, 3),
    "S_ON_BAD": (summary("S_ON_BAD", ["S_CLAIM"]), False, None),  # rests on an unsupported one
    "S_CYCLE_A": (summary("S_CYCLE_A", ["O1", "S_CYCLE_B"]), False, None),
    "S_CYCLE_B": (summary("S_CYCLE_B", ["S_CYCLE_A"]), False, None),
    # a summary about O1's own key with another value contradicts its source
    "S_CONTRA": (entry("S_CONTRA", attribute="src_o1", value="not O1", kind="summary", scope="t:a",
                       authority=5, justification=["O1"], source="agent:1"), False, None),
    "S_AGREES": (entry("S_AGREES", attribute="src_o1", value="O1", kind="summary", scope="t:a",
                       authority=5, justification=["O1"], source="agent:1"), True, 3),
    # the same, reached through an observation of a key that no summary has
    "S_FAR": (entry("S_FAR", attribute="src_o3", value="not O3", kind="summary", scope="t:a",
                    authority=5, justification=["O4"], source="agent:1"), False, None),
    "S_FAR_AGREES": (entry("S_FAR_AGREES", attribute="src_o3", value="O3", kind="summary",
                           scope="t:a", authority=5, justification=["O4"], source="agent:1"), True, 3),
    # resting on a contradicted summary, directly and two steps up; beside a supported one
    "S_ON_CONTRA": (summary("S_ON_CONTRA", ["S_CONTRA", "O1"]), False, None),
    "S_ABOVE_CONTRA": (summary("S_ABOVE_CONTRA", ["S_ON_CONTRA"]), False, None),
    "S_ON_AGREES": (summary("S_ON_AGREES", ["S_AGREES", "O2"]), True, 1),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    events = [(AT, "write", e) for e in SOURCES] + [(AT, "write", s) for s, _, _ in SUMMARIES.values()]
    quarantined = {**SOURCES[4], "status": "quarantined"}
    events.append(("2025-01-01T00:00:01Z", "quarantine", quarantined))
    loaded = Store(write_store(tmp_path_factory.mktemp("support") / "s", events), warn=False)
    yield loaded
    loaded.close()


def test_which_summaries_the_rule_supports(store):
    stepwise.materialize(store.con, NOW.tk, B.at_head(store.con, NOW.tk))
    rows = store.con.execute(sql("unsupported_among"), {"ids": list(SUMMARIES)}).fetchall()
    assert sorted(r[0] for r in rows) == sorted(k for k, (_, ok, _) in SUMMARIES.items() if not ok)


def test_a_supported_summary_is_no_stronger_than_its_weakest_support(store):
    keys = sorted({(s["entity"], s["attribute"]) for s, _, _ in SUMMARIES.values()})
    B.judge_keys(store.con, NOW.tk, keys)         # as the whole store's ranges judge them
    judged = {r[0]: (r[1], r[2]) for r in store.con.execute(
        "SELECT memory_id, supported, eff_authority FROM judged WHERE kind = 'summary'").fetchall()}
    # an unsupported summary keeps its own authority (5 here): it is never a candidate anyway
    assert judged == {k: (ok, authority if ok else 5) for k, (_, ok, authority) in SUMMARIES.items()}


def test_only_supported_summaries_are_believed(store):
    B.materialize(store.con, B.ViewSpec(None, NOW))
    believed = {r["memory_id"] for r in B.all_beliefs(store.con)}
    supported = {k for k, (_, ok, _) in SUMMARIES.items() if ok}
    assert believed & set(SUMMARIES) == supported
    assert "O1" not in believed           # S_AGREES ties with it at 3 and has the greater id


def test_an_unsupported_summary_says_so_among_the_rivals(store):
    spec = B.ViewSpec("t:a", NOW)
    with judged_now(store.con, ("e", "src_o1"), spec):
        rows = B.rivals(store.con, spec, "e", "src_o1", "t:a")
    assert [(r["memory_id"], r["reason"]) for r in rows] == [
        ("S_AGREES", "belief"), ("S_CONTRA", "unsupported_summary"), ("O1", "outranked:recency")]
