"""Leave-one-origin-out scoring of the gate model: each origin's texts scored by a model trained,
with bench/train_detector.py's recipe, on every other origin (what bench/detector_report.py's
sections 2 and 3 print). Needs sklearn and numpy, as training does."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import train_detector as td  # noqa: E402
from inspector.store.detect import gate_model  # noqa: E402
from inspector.store.detect.markup import readings  # noqa: E402
from inspector.store.detect.shape import rule_match  # noqa: E402


def judged_readings(text: str) -> tuple[tuple[str, str | None], ...]:
    """Each reading rule_shape judges of a text (markup.readings) with its matching rule's key."""
    found = []
    for reading in readings(text):
        hit = rule_match(reading)
        found.append((reading, hit[1] if hit else None))
    return tuple(found)


def judged(model: gate_model.GateModel, readings) -> tuple[float, bool]:
    """rule_shape's verdict of a text from its judged_readings: the model's probability of its
    likelier reading, and whether a trusted rule matches either."""
    return (max(model.probability(text, rule) for text, rule in readings),
            any(rule in model.trusted_rules for _, rule in readings))


_FOLD: dict = {}       # what the fold processes read (inherited through fork, never pickled)


def _fold(origin: str) -> tuple[str, list[tuple[int, float, bool]], str]:
    rows, rules, feats = _FOLD["rows"], _FOLD["rules"], _FOLD["feats"]
    train = [i for i, r in enumerate(rows) if r["origin"] != origin]
    test = [i for i, r in enumerate(rows) if r["origin"] == origin]
    started = time.perf_counter()
    doc = td.fit([rows[i] for i in train], [feats[i] for i in train])
    model = gate_model.GateModel(doc)
    scored = [(i, *judged(model, rules[i])) for i in test]
    line = (f"  fold {origin:<28} trained on {len(train):>5}, scored {len(test):>5} "
            f"({time.perf_counter() - started:.1f} s); trusts {', '.join(doc['trusted_rules'])}")
    return origin, scored, line


def looo_probabilities(rows: list[dict], rules: list[tuple], feats=None,
                       log=print) -> tuple[list[float], list[bool]]:
    """Each row's probability under a model trained without its origin, and whether that
    model trusts a rule that matched it (rules: each row's judged_readings). The folds are independent: they run in one
    process per core (fork; in this process when it runs other threads), each fit
    single-threaded, and give the same figures as one process would."""
    feats = feats if feats is not None else td.featurize(rows)
    _FOLD.update(rows=rows, rules=rules, feats=feats)
    origins = sorted({r["origin"] for r in rows})
    workers = min(len(origins), os.cpu_count() or 1)
    try:
        fork = td.fork_context()
        if workers > 1 and fork is not None:
            with fork.Pool(workers) as pool:
                folds = pool.map(_fold, origins, chunksize=1)
        else:
            folds = [_fold(origin) for origin in origins]
    finally:
        _FOLD.clear()
    result = [0.0] * len(rows)
    trusted = [False] * len(rows)
    for _origin, scored, line in folds:
        for i, p, tr in scored:
            result[i] = p
            trusted[i] = tr
        log(line)
    return result, trusted
