"""The SQL belief view against a plain-Python reading of DESIGN §3, on random small stores."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

import belief_reference as ref
from storegen import entry, write_store
from inspector.store import beliefs as B
from inspector.store.entries import judged_now
from inspector.store.load import Store
from inspector.store.model import parse_time

SCOPES = ["", "t:a", "t:a/u:1", "t:a/u:1/p:x", "t:b"]
TIMES = [f"2025-01-0{d}T00:00:00Z" for d in range(1, 8)]
STATUSES = ["active"] * 6 + ["held", "quarantined", "retracted", "rejected", "expired"]
LATE = "2025-06-01T00:00:00Z"
EXAMPLES = int(os.environ.get("BELIEF_EXAMPLES", "60"))   # CI; fewer in mutation runs, more in a long run


CHAIN = ["", "t:a", "t:a/u:1", "t:a/u:1/p:x"]          # each visible from the next
ORDER = ("authority", "depth", "recency", "id")


@st.composite
def rival_of(draw, base: dict, eid: str, earlier: bool) -> dict:
    """An observation of base's key that ties with it on the parts of the order before two
    adjacent ones and wins on one of the two but loses on the other, so that only the right
    order of the rule picks the right belief. `earlier`: eid sorts before base's id."""
    first = draw(st.sampled_from(ORDER[:3]))
    up = draw(st.booleans())                   # the rival wins on `first`, loses on the next
    sign = 1 if up else -1
    auth, depth = base["authority"], CHAIN.index(base["scope"])
    day = TIMES.index(base["observed_at"])
    if first == "authority":
        auth += sign
        depth = min(max(depth - sign * draw(st.integers(1, 2)), 0), 3)
    elif first == "depth":
        depth = min(max(depth + sign, 0), 3)
        day = min(max(day - sign * draw(st.integers(1, 2)), 0), 2)
    else:                                      # recency against the id: newer iff a lesser id
        day = min(max(day + (1 if earlier else -1), 0), 2)
    return entry(eid, entity=base["entity"], attribute=base["attribute"],
                 value=draw(st.sampled_from([base["value"], "x", "y", 2])),
                 source=draw(st.sampled_from(["tool:a", "tool:b/x", "user:1", "agent:2"])),
                 observed_at=TIMES[day], authority=auth, scope=CHAIN[depth])


@st.composite
def stores(draw):
    """Small stores biased toward several candidates for one key, so that the order of the
    rule matters: most entries are observations of key (e1, a1) in scopes visible from
    t:a/u:1, many of them rivals of an earlier one built so that two parts of the order
    disagree about them (rival_of); authorities, depths and times come from small pools."""
    n = draw(st.integers(2, 10))
    ids = [f"M{i}" for i in range(n)]
    focus = draw(st.sampled_from(["", "t:a", "t:a/u:1"]))       # where most entries live
    entries = []
    for i, eid in enumerate(ids):
        observations = [e for e in entries if e["kind"] == "observation" and e["scope"] in CHAIN]
        if observations and draw(st.integers(0, 2)) > 0:
            base = draw(st.sampled_from(observations))
            entries.append(draw(rival_of(base, eid, earlier=eid < base["id"])))
            continue
        key = draw(st.sampled_from([("e1", "a1")] * 5 + [("e1", "a2")]))
        kind = draw(st.sampled_from(["observation"] * 7 + ["summary"] * 2 + ["claim", "inference"]))
        vf = draw(st.sampled_from([None] * 16 + TIMES))
        vt = draw(st.sampled_from([None] * 24 + TIMES[3:]))
        pool = ids[:i] * 4 + ids[i:] + ["X404"] if i else ids + ["X404"]
        cites = draw(st.lists(st.sampled_from(pool), min_size=1 if kind == "summary" else 0,
                              max_size=3, unique=True)) if kind != "observation" or i % 5 == 4 else []
        entries.append(entry(
            eid, entity=key[0], attribute=key[1], value=draw(st.sampled_from(["x", "y", "z", 1, 2])),
            kind=kind, source=draw(st.sampled_from(["tool:a", "tool:b/x", "user:1", "agent:2"])),
            observed_at=draw(st.sampled_from(TIMES[:3])), valid_from=vf, valid_to=vt,
            authority=draw(st.integers(1, 2)),
            scope=draw(st.sampled_from([focus, "", "t:a", "t:a/u:1", "t:a/u:1", "t:a/u:1/p:x", "t:b"])),
            justification=cites))
    events = []
    for e in entries:
        events.append((draw(st.sampled_from(TIMES[:3])), "write", e))
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2, 4]))):
        e = draw(st.sampled_from(entries))
        change = draw(st.sampled_from(["status", "value", "authority"]))
        new = dict(e)
        if change == "status":
            new["status"] = draw(st.sampled_from(STATUSES))
        elif change == "value":
            new["value"] = draw(st.sampled_from(["x", "y", "w"]))
        else:
            new["authority"] = draw(st.integers(0, 3))
        events.append((draw(st.sampled_from(TIMES)), "update", new))
    tk = draw(st.sampled_from(TIMES + [LATE] * 14))
    tv = draw(st.sampled_from([None] * 14 + TIMES))
    context = draw(st.sampled_from([None] * 3 + ["t:a/u:1", "t:a/u:1/p:x"] * 2 + SCOPES))
    return events, tk, tv, context


def case(*entries, context="t:a/u:1"):
    """A fixed example: every entry written at day 1, judged late, in `context`."""
    return [(TIMES[0], "write", e) for e in entries], LATE, None, context


def obs(eid, authority, scope, day, value, source="tool:a"):
    return entry(eid, entity="e1", attribute="a1", value=value, authority=authority, scope=scope,
                 observed_at=TIMES[day - 1], source=source)


# Each of these is decided by one part of the order (authority, then scope depth, then
# observed_at, then id): swapping that part with the next one (or, for the id, reversing it)
# picks another belief. bench/mutation/generator_power.py measures how often random stores
# tell the orders apart.
AUTHORITY_DECIDES = case(obs("M0", 2, "t:a", 1, "x"), obs("M1", 1, "t:a/u:1", 3, "y"))
DEPTH_DECIDES = case(obs("M0", 1, "t:a/u:1", 1, "x"), obs("M1", 1, "t:a", 3, "y", "tool:b/x"))
RECENCY_DECIDES = case(obs("M5", 1, "t:a", 1, "x"), obs("M1", 1, "t:a", 3, "y", "user:1"))
ID_DECIDES = case(obs("M1", 1, "t:a", 2, "x"), obs("M2", 1, "t:a", 2, "y", "agent:2"), context=None)


def reference_events(events):
    out = []
    for seq, (at, _op, after) in enumerate(events, start=1):
        a = dict(after)
        for name in ("observed_at", "valid_from", "valid_to"):
            a[name + "_dt"] = parse_time(a[name]) if a[name] else None
        out.append({"seq": seq, "at_dt": parse_time(at), "memory_id": a["id"], "after": a})
    return out


def sql_table(store: Store, spec: B.ViewSpec) -> dict:
    B.materialize(store.con, spec)
    out = {}
    for r in B.all_beliefs(store.con):
        marks = {m: sorted(r[B.MARKER_IDS[m]]) for m in r["markers"]}
        out[(r["scope"], r["entity"], r["attribute"])] = {
            "memory_id": r["memory_id"], "candidates": r["candidates"], "markers": marks}
    return out


def in_parts(store: Store, spec: B.ViewSpec) -> tuple:
    """The belief table and the conflicts materialized a range of about 2 judged entries at a
    time, and the rows each_belief_of and each_conflict_of read a range at a time."""
    kept = B.PART_ENTRIES
    B.PART_ENTRIES = 2
    try:
        streamed = list(B.each_belief_of(store.con, spec)), list(B.each_conflict_of(store.con, spec))
        B.materialize(store.con, spec)
        whole = B.all_beliefs(store.con), B.conflicts(store.con)
    finally:
        B.PART_ENTRIES = kept
    return *whole, *streamed


@pytest.mark.heavy
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(case=stores())
@example(case=AUTHORITY_DECIDES)
@example(case=DEPTH_DECIDES)
@example(case=RECENCY_DECIDES)
@example(case=ID_DECIDES)
def test_sql_beliefs_match_reference(tmp_path_factory, case):
    events, tk_text, tv_text, context = case
    root = write_store(tmp_path_factory.mktemp("s") / "store", events)
    store = Store(root, warn=False)
    tk = parse_time(tk_text)
    tv = parse_time(tv_text) if tv_text else tk
    spec = B.ViewSpec(context, B.Moment(tk=tk, tv=tv))
    st_ = ref.state_at(reference_events(events), tk)
    expected = ref.belief_table(st_, tk, tv, context)
    assert sql_table(store, spec) == expected
    # Built a few keys at a time, as a large store's table is: the same rows, positions and
    # all; `judged` is scratch, left empty.
    whole, marks = B.all_beliefs(store.con), B.conflicts(store.con)
    assert store.con.execute("SELECT count(*) FROM judged").fetchone()[0] == 0
    assert in_parts(store, spec) == (whole, marks, whole, marks)
    for key in {(e["entity"], e["attribute"]) for e in st_.values()}:
        scopes = {e["scope"] for e in st_.values() if (e["entity"], e["attribute"]) == key}
        for ctx in [context] if context is not None else sorted(scopes | {""}):
            _, reasons = ref.judge(st_, key, ctx, tk, tv)
            with judged_now(store.con, key, spec):     # that key alone judged as of tk
                got = {r["memory_id"]: r["reason"] for r in B.rivals(store.con, spec, key[0], key[1], ctx)}
            assert got == reasons, (key, ctx)
    store.close()
