"""A plain-Python reading of DESIGN §3 and §4, written independently of the SQL, for tests.

Entries are dicts in the stored shape; times are aware datetimes. Nothing here is fast.
"""

from __future__ import annotations

from datetime import datetime

INF = datetime.max.replace(tzinfo=None)


def visible(scope: str, context: str) -> bool:
    return scope == "" or context == scope or context.startswith(scope + "/")


def depth(scope: str) -> int:
    return 0 if scope == "" else len(scope.split("/"))


def principal(source: str) -> str:
    return source.split("/", 1)[0]


def state_at(events: list[dict], tk: datetime) -> dict[str, dict]:
    """DESIGN §3.1: the after of each entry's last event (by seq) with at <= tk."""
    state: dict[str, dict] = {}
    for event in sorted(events, key=lambda e: e["seq"]):
        if event["at_dt"] <= tk:
            state[event["memory_id"]] = event["after"]
    return {k: v for k, v in state.items() if v.get("status") != "erased"}


def _supported(sid, st, visiting) -> bool:
    s = st[sid]
    if not s["justification"] or sid in visiting:
        return False
    visiting = visiting | {sid}
    for cited in s["justification"]:
        c = st.get(cited)
        if c is None or c["status"] != "active" or not visible(c["scope"], s["scope"]):
            return False
        if c["kind"] == "summary":
            if not _supported(cited, st, visiting):
                return False
        elif c["kind"] != "observation":
            return False
    for a in ancestors(sid, st):
        o = st.get(a)
        if o and o["kind"] == "observation" and (o["entity"], o["attribute"]) == (s["entity"], s["attribute"]) \
                and o["value"] != s["value"]:
            return False
    return True


def supported(sid, st) -> bool:
    return _supported(sid, st, frozenset())


def eff_authority(eid, st) -> int:
    e = st[eid]
    if e["kind"] != "summary":
        return e["authority"]
    return min([e["authority"]] + [eff_authority(c, st) for c in e["justification"]])


def ancestors(eid, st) -> set[str]:
    seen, todo = set(), list(st[eid]["justification"]) if eid in st else []
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        if x in st:
            todo.extend(st[x]["justification"])
    return seen


def start(e):
    return e["valid_from_dt"] or e["observed_at_dt"]


def end(e):
    return e["valid_to_dt"] or INF


def pre_reason(e, eid, st, ctx, tk, tv):
    if e["status"] != "active":
        return "status:" + e["status"]
    if e["kind"] in ("claim", "inference"):
        return "kind:" + e["kind"]
    if not visible(e["scope"], ctx):
        return "out_of_scope"
    if e["observed_at_dt"] > tk:
        return "not_yet_known"
    if _lt(tv, start(e)):
        return "not_yet_valid"
    if e["valid_to_dt"] is not None and not _lt(tv, e["valid_to_dt"]):
        return "validity_ended"
    if e["kind"] == "summary" and not supported(eid, st):
        return "unsupported_summary"
    return None


def _lt(a, b):
    return a.replace(tzinfo=None) < b.replace(tzinfo=None)


def rank_key(eid, st):
    e = st[eid]
    return (eff_authority(eid, st), depth(e["scope"]), e["observed_at_dt"], eid)


def by_key(st) -> dict[tuple, list[str]]:
    index: dict[tuple, list[str]] = {}
    for i, e in st.items():
        index.setdefault((e["entity"], e["attribute"]), []).append(i)
    return index


def judge(st, key, ctx, tk, tv, about=None) -> tuple[str | None, dict[str, str]]:
    """(winner id, reason of every entry about the key) in context ctx."""
    if about is None:
        about = [i for i, e in st.items() if (e["entity"], e["attribute"]) == key]
    pre = {i: pre_reason(st[i], i, st, ctx, tk, tv) for i in about}
    cands = [i for i in about if pre[i] is None]
    if not cands:
        return None, pre
    win = max(cands, key=lambda i: rank_key(i, st))
    reasons = {}
    wa, wd = eff_authority(win, st), depth(st[win]["scope"])
    for i in about:
        if i == win:
            reasons[i] = "belief"
        elif pre[i]:
            reasons[i] = pre[i]
        elif eff_authority(i, st) < wa:
            reasons[i] = "outranked:authority"
        elif depth(st[i]["scope"]) < wd:
            reasons[i] = "outranked:scope"
        else:
            reasons[i] = "outranked:recency"
    return win, reasons


def markers(st, key, ctx, tk, tv, win, reasons, about=None) -> dict[str, list[str]]:
    w = st[win]
    cands = [i for i, r in reasons.items() if r.startswith("outranked:")]
    out = {}
    contested = [i for i in cands if eff_authority(i, st) == eff_authority(win, st)
                 and depth(st[i]["scope"]) == depth(w["scope"]) and st[i]["value"] != w["value"]
                 and principal(st[i]["source"]) != principal(w["source"])
                 and _lt(start(st[i]), end(w)) and _lt(start(w), end(st[i]))]
    vetoed = [i for i in cands if st[i]["observed_at_dt"] > w["observed_at_dt"]
              and eff_authority(i, st) < eff_authority(win, st) and st[i]["value"] != w["value"]]
    for kind, name in (("claim", "claim_disagrees"), ("inference", "inference_disagrees")):
        pool = ((i, st[i]) for i in about) if about is not None else st.items()
        ids = [i for i, e in pool if (e["entity"], e["attribute"]) == key and e["kind"] == kind
               and e["status"] in ("active", "held") and visible(e["scope"], ctx)
               and e["observed_at_dt"] <= tk and not _lt(tv, start(e))
               and (e["valid_to_dt"] is None or _lt(tv, e["valid_to_dt"])) and e["value"] != w["value"]]
        if ids:
            out[name] = sorted(ids)
    if contested:
        out["contested"] = sorted(contested)
    if vetoed:
        out["vetoed_newer"] = sorted(vetoed)
    return out


def belief_table(st, tk, tv, context=None) -> dict[tuple, dict]:
    """{(scope, entity, attribute): {memory_id, candidates, markers}} as DESIGN §3 defines."""
    out = {}
    for key, about in by_key(st).items():
        scopes = {context} if context is not None else {st[i]["scope"] for i in about}
        for ctx in scopes:
            win, reasons = judge(st, key, ctx, tk, tv, about)
            if win is None:
                continue
            out[(ctx, *key)] = {"memory_id": win,
                                "candidates": sum(1 for r in reasons.values()
                                                  if r == "belief" or r.startswith("outranked:")),
                                "markers": markers(st, key, ctx, tk, tv, win, reasons, about)}
    return out
