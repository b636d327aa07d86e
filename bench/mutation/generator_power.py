"""How often a generated store can tell the belief rule's order from a wrong one.

The differential test (tests/unit/test_beliefs_differential.py) only catches a swapped order
when its generator makes a store where the swap changes a belief or a reason. This draws
stores from that generator and judges each with the reference rule and with three swapped
orders (authority<->depth, depth<->recency, recency<->id), counting the stores that tell them
apart. Run: python bench/mutation/generator_power.py [N]
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "unit")]

import belief_reference as ref  # noqa: E402
from hypothesis.errors import NonInteractiveExampleWarning  # noqa: E402
from inspector.store.model import parse_time  # noqa: E402
from test_beliefs_differential import reference_events, stores  # noqa: E402

RIGHT = ref.rank_key
SWAPS = {
    "authority<->depth": lambda i, s: (ref.depth(s[i]["scope"]), ref.eff_authority(i, s),
                                       s[i]["observed_at_dt"], i),
    "depth<->recency": lambda i, s: (ref.eff_authority(i, s), s[i]["observed_at_dt"],
                                     ref.depth(s[i]["scope"]), i),
    "recency<->id": lambda i, s: (ref.eff_authority(i, s), ref.depth(s[i]["scope"]), i,
                                  s[i]["observed_at_dt"]),
}


def judged(events, tk_text, tv_text, context, rank) -> tuple:
    ref.rank_key = rank
    try:
        tk = parse_time(tk_text)
        tv = parse_time(tv_text) if tv_text else tk
        state = ref.state_at(reference_events(events), tk)
        table = ref.belief_table(state, tk, tv, context)
        reasons = []
        for key in sorted({(e["entity"], e["attribute"]) for e in state.values()}):
            scopes = {e["scope"] for e in state.values() if (e["entity"], e["attribute"]) == key}
            for ctx in [context] if context is not None else sorted(scopes | {""}):
                reasons.append(sorted(ref.judge(state, key, ctx, tk, tv)[1].items()))
        return sorted((k, v["memory_id"]) for k, v in table.items()), reasons, table
    finally:
        ref.rank_key = RIGHT


def main(n: int = 1000) -> None:
    warnings.simplefilter("ignore", NonInteractiveExampleWarning)
    strategy = stores()
    told = {name: 0 for name in SWAPS}
    no_candidate = one_candidate = several = 0
    for _ in range(n):
        case = strategy.example()
        right = judged(*case, RIGHT)
        counts = [v["candidates"] for v in right[2].values()]
        if not counts:
            no_candidate += 1
        elif max(counts) == 1:
            one_candidate += 1
        else:
            several += 1
        for name, rank in SWAPS.items():
            told[name] += judged(*case, rank)[:2] != right[:2]
    print(f"{n} stores: {no_candidate / n:.0%} with no candidate for any key, "
          f"{one_candidate / n:.0%} with exactly one at most, {several / n:.0%} with several")
    for name, k in told.items():
        print(f"  tell the rule from {name}: {k / n:.1%}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
