"""Generate a synthetic store of realistic shape for benchmarks.

    python bench/synth.py --events 1000000 --out /tmp/store-1m

Shape: hundreds of thousands of keys, 3-20 versions each spread over 1-3
entries (different sources and scopes), tenant/user/project scopes, summaries
that cite observations, claims and inferences, a share of holds, quarantines
and retractions, some validity windows and +02:00 offsets, and one root
observation with exactly 10,000 descendants (ROOT-10K) for lineage timing.
The log is chained exactly as a real store (DESIGN §2.1).

    python bench/synth.py --events 1000000 --out /tmp/store-long --long

`--long` gives the shape an outside generator gave us once: values that are prose
(lognormal length, median about 400 characters, a tail past 8 KB) or objects nested
three deep, and states that leave out the fields whose default is null (DESIGN §2.2).
`--wide` gives keys 1-3 versions (most entries written once): about 0.85 entries an event, near
that outside store (0.7: 697k entries at 1M events), against 0.25 without it.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from inspector.store.chain import GENESIS, line_bytes, seal  # noqa: E402

ATTRIBUTES = ["home_city", "timeout_seconds", "owner", "language", "plan", "email_opt_in",
              "delivery_date", "refund_window_days", "deploy_branch", "timezone", "team", "budget"]
SOURCES = ["tool:orders", "user:{u}", "document:upload-{n}", "agent:427", "system:crm", "web:example.org"]
T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
PLUS2 = timezone(timedelta(hours=2))


WORDS = ("the customer asked that we always ship to the office address and never call before "
         "nine because the account owner travels often and prefers email for any change to the "
         "order or the refund window which was agreed with support last quarter").split()
NULLABLE = ("valid_from", "valid_to", "subject", "context", "held_reason", "retention",
            "expires_at", "sensitivity", "confidence")


def long_value(rng: random.Random, k: int, tag: str):
    if rng.random() < 0.15:
        return {"k": k, "note": tag, "detail": {"items": [{"sku": f"S{rng.randint(1, 9999)}",
                                                          "qty": rng.randint(1, 9)}
                                                         for _ in range(rng.randint(1, 6))]}}
    n = min(12_000, int(rng.lognormvariate(5.99, 0.9)))
    words, size = [tag], len(tag)
    while size < n:
        words.append(rng.choice(WORDS))
        size += len(words[-1]) + 1
    return " ".join(words)


class Writer:
    long = wide = False

    def __init__(self, path: Path, rng: random.Random):
        self.out = open(path, "wb", buffering=1 << 22)
        self.seq, self.prev, self.rng = 0, GENESIS, rng
        self.now = T0
        self.states: dict[str, dict] = {}

    def stamp(self) -> str:
        self.now += timedelta(seconds=self.rng.randint(1, 30))
        t = self.now.astimezone(PLUS2) if self.rng.random() < 0.05 else self.now
        return t.isoformat().replace("+00:00", "Z")

    def emit(self, op: str, after: dict, actor: str, reason=None, batch=None) -> None:
        self.seq += 1
        if self.long:
            after = {f: v for f, v in after.items() if not (f in NULLABLE and v is None)}
        before = self.states.get(after["id"])
        body = {"before": before, "after": after, "reason": reason,
                "salt": "%032x" % self.rng.getrandbits(128)}
        event = {"seq": self.seq, "at": self.stamp(), "actor": actor, "op": op,
                 "memory_id": after["id"], "batch": batch, "body": body}
        seal(event, self.prev)
        self.prev = event["hash"]
        self.states[after["id"]] = after
        self.out.write(line_bytes(event))


def entry(eid, entity, attribute, value, kind, source, scope, at, authority, **extra):
    state = {"id": eid, "entity": entity, "attribute": attribute, "value": value, "kind": kind,
             "layer": "semantic", "source": source, "authority": authority, "confidence": 0.8,
             "observed_at": at, "valid_from": None, "valid_to": None, "scope": scope,
             "subject": None, "justification": [], "context": None, "status": "active",
             "held_reason": None, "retention": None, "expires_at": None, "sensitivity": None,
             "tags": []}
    state.update(extra)
    return state


def scope_for(rng, tenant, user):
    r = rng.random()
    if r < 0.1:
        return ""
    if r < 0.3:
        return f"tenant:t{tenant}"
    if r < 0.8:
        return f"tenant:t{tenant}/user:u{user}"
    return f"tenant:t{tenant}/user:u{user}/project:p{rng.randint(1, 4)}"


def write_root_fan(w: Writer) -> int:
    """ROOT-10K: 100 summaries cite it, each cited by 99 more: 10,000 descendants."""
    at = w.stamp()
    w.emit("write", entry("ROOT-10K", "svc", "timeout_seconds", 30, "observation",
                          "tool:config", "", at, 5), "agent:427")
    n = 1
    for i in range(100):
        mid = f"FAN-{i}"
        w.emit("write", entry(mid, "svc", f"fan_{i}", 30, "summary", "agent:427", "", w.stamp(), 5,
                              justification=["ROOT-10K"]), "agent:427")
        n += 1
        for j in range(99):
            w.emit("write", entry(f"FAN-{i}-{j}", "svc", f"fan_{i}_{j}", 30, "summary", "agent:427",
                                  "", w.stamp(), 5, justification=[mid]), "agent:427")
            n += 1
    return n


def write_key(w: Writer, rng: random.Random, k: int, budget: int) -> int:
    tenant, user = rng.randint(1, 50), rng.randint(1, 2000)
    entity = f"user:u{user}" if rng.random() < 0.5 else f"order-{k}"
    attribute = rng.choice(ATTRIBUTES)
    versions = min(budget, rng.choice([1, 1, 1, 1, 2, 2, 3] if w.wide else
                                      [3, 3, 4, 4, 5, 6, 7, 8, 10, 12, 15, 20]))
    n_entries = min(versions, rng.randint(1, 3))
    ids, used = [], 0
    for e in range(n_entries):
        eid = f"K{k}-{e}"
        kind = rng.choices(["observation", "claim", "inference", "summary"], [70, 10, 10, 10])[0]
        src = rng.choice(SOURCES).format(u=f"u{user}", n=rng.randint(1, 999))
        cites = ids[:1] if kind in ("summary", "inference") and ids else []
        if kind == "summary" and not cites:
            kind = "observation"
        at = w.stamp()
        value = long_value(rng, k, f"value-{k}-{e}-0") if w.long else f"value-{k}-{e}-0"
        state = entry(eid, entity, attribute, value, kind, src, scope_for(rng, tenant, user),
                      at, rng.randint(0, 3), justification=cites,
                      subject=f"user:u{user}" if entity.startswith("user:") else None)
        if rng.random() < 0.1:
            state["valid_from"] = at
            state["valid_to"] = (w.now + timedelta(days=rng.randint(1, 400))).isoformat().replace("+00:00", "Z")
        if rng.random() < 0.05:
            state.update(status="held", held_reason="rule_from_untrusted_source")
            w.emit("hold", dict(state), "agent:427")
        else:
            w.emit("write", dict(state), "agent:427")
        ids.append(eid)
        used += 1
    while used < versions:
        eid = rng.choice(ids)
        state = dict(w.states[eid])
        r = rng.random()
        if state["status"] == "held":
            state["status"], op = "active", "approve"
            state["held_reason"] = None
            w.emit(op, state, "operator:alice", reason="reviewed")
        elif r < 0.03 and state["status"] == "active":
            state["status"] = "quarantined"
            w.emit("quarantine", state, "operator:bob", reason="suspect", batch=f"b{w.seq}")
        elif r < 0.05 and state["status"] == "active":
            state["status"] = "retracted"
            w.emit("retract", state, "operator:bob", reason="wrong", batch=f"b{w.seq}")
        else:
            tag = f"value-{k}-{eid}-{used}"
            state["value"] = long_value(rng, k, tag) if w.long else tag
            state["observed_at"] = w.stamp()
            w.emit("update", state, "agent:427")
        used += 1
    return used


def generate(events: int, out: Path, seed: int = 7, long: bool = False, wide: bool = False) -> None:
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    rng = random.Random(seed)
    w = Writer(out / "events.jsonl", rng)
    w.long, w.wide = long, wide
    total = write_root_fan(w) if events >= 20_000 else 0
    k = 0
    while total < events:
        total += write_key(w, rng, k, events - total)
        k += 1
        if k % 50_000 == 0:
            w.states = {key: s for key, s in w.states.items() if not key.startswith("K")}
    w.out.close()
    os.chmod(out / "events.jsonl", 0o600)
    print(f"{out}: {w.seq} events, {k} keys", file=sys.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--long", action="store_true", help="long values, nested objects, null fields left out")
    ap.add_argument("--wide", action="store_true", help="1-3 versions a key, so about 0.7 entries an "
                    "event (the outside store's 697k entries at 1M events)")
    args = ap.parse_args()
    generate(args.events, args.out, args.seed, args.long, args.wide)
