"""The SQL belief view against a plain-Python reading of DESIGN §3, on random small stores."""

from __future__ import annotations


from hypothesis import HealthCheck, given, settings, strategies as st

import belief_reference as ref
from storegen import entry, write_store
from inspector.store import beliefs as B
from inspector.store.load import Store
from inspector.store.model import parse_time

SCOPES = ["", "t:a", "t:a/u:1", "t:a/u:1/p:x", "t:b"]
TIMES = [f"2025-01-0{d}T00:00:00Z" for d in range(1, 8)]
KEYS = [("e1", "a1"), ("e1", "a1"), ("e1", "a2")]
STATUSES = ["active"] * 6 + ["held", "quarantined", "retracted", "rejected", "expired"]


@st.composite
def stores(draw):
    n = draw(st.integers(2, 10))
    ids = [f"M{i}" for i in range(n)]
    entries = []
    for i, eid in enumerate(ids):
        key = draw(st.sampled_from(KEYS))
        kind = draw(st.sampled_from(["observation"] * 5 + ["summary"] * 3 + ["claim", "inference"]))
        vf = draw(st.sampled_from([None] * 8 + TIMES))
        vt = draw(st.sampled_from([None] * 12 + TIMES[3:]))
        pool = ids[:i] * 4 + ids[i:] + ["X404"] if i else ids + ["X404"]
        cites = draw(st.lists(st.sampled_from(pool), min_size=1 if kind == "summary" else 0,
                              max_size=3, unique=True)) if kind != "observation" or i % 5 == 4 else []
        entries.append(entry(
            eid, entity=key[0], attribute=key[1], value=draw(st.sampled_from(["x", "y", "z", 1, 2])),
            kind=kind, source=draw(st.sampled_from(["tool:a", "tool:b/x", "user:1", "agent:2"])),
            observed_at=draw(st.sampled_from(TIMES[:5])), valid_from=vf, valid_to=vt,
            authority=draw(st.integers(1, 2)), scope=draw(st.sampled_from(SCOPES)),
            justification=cites))
    events = []
    for e in entries:
        events.append((draw(st.sampled_from(TIMES[:5])), "write", e))
    for _ in range(draw(st.integers(0, 6))):
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
    tk = draw(st.sampled_from(TIMES + ["2025-06-01T00:00:00Z"] * 6))
    tv = draw(st.sampled_from([None] + TIMES))
    context = draw(st.sampled_from([None, None] + SCOPES))
    return events, tk, tv, context


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


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(case=stores())
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
    for key in {(e["entity"], e["attribute"]) for e in st_.values()}:
        ctx = context if context is not None else ""
        _, reasons = ref.judge(st_, key, ctx, tk, tv)
        got = {r["memory_id"]: r["reason"] for r in B.rivals(store.con, spec, key[0], key[1], ctx)}
        assert got == reasons, key
    store.close()
