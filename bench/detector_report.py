"""How well and how fast the write gate's text detector works: a report, not a test.

    python bench/detector_report.py [--speed N] [--no-looo] [--with-unseen]

The detector is rule_shape (inspector/store/detect): a trusted rule (precise across the
training origins) holds on its own; otherwise the trained gate model's probability, which adds
a learnt weight for the explainable rule that matched (if any), at least its threshold. The
corpus is bench/train_detector.py's: every origin under tests/corpus/origins/ plus the legacy
rule corpus (origin "legacy").

1. In-corpus: the shipped model and the rules on the whole corpus, recall on attacks and FPR
   on benign texts per category and per label (the figures tests/unit/test_gate_model.py
   asserts). The model has seen these texts: this says it learnt them, nothing more.
2. Leave-one-origin-out (LOOO): for each origin, a model trained on all the others (same
   recipe, same threshold) scores it; recall on its attacks, FPR on its benign texts, per
   origin, per category and pooled. This is what predicts a corpus the project never saw.
   The rules were written against the legacy corpus, so its LOOO row flatters them.
3. Calibration: threshold -> pooled LOOO recall / FPR; the shipped threshold is chosen here
   (bench/train_detector.py says why).
4. Unseen origins: the shipped model on the origins under tests/corpus/unseen/, which it
   never trained on (written after it was trained, by briefs that read none of the training
   origins; tests/corpus/unseen/SOURCES.md). With LOOO, the best predictor of a corpus the
   project never saw; unlike LOOO, it scores the very model that ships.
   --with-unseen instead runs section 2 over the training and the unseen origins together and
   stops after its calibration: what training on both would measure, and how the training
   origins alone fare when the model also learnt the unseen ones. (Its first run, 2026-12-03,
   over the 18 origins of then and the 7 held out then: at 0.96, 0.774 of the 18's attacks
   held at FPR 0.028, against 0.721 at 0.025 without the 7. That is why the 7 were moved
   into origins/ at stop 35.)
5. Throughput of the whole gate text path (rules + model + secret detector) over typical
   memory-sized values, 10-300 characters.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import train_detector as td  # noqa: E402
from looo import judged, judged_readings, looo_probabilities  # noqa: E402
from inspector.store.detect import batch, gate_model, rule_shape, secret  # noqa: E402
from inspector.store.detect.shape import rule_match, rules_finding  # noqa: E402

THRESHOLDS = [0.30, 0.40, 0.50, 0.60, 0.70, 0.75, 0.80, 0.85, 0.90, 0.92, 0.94, 0.95, 0.96,
              0.965, 0.97, 0.975, 0.98, 0.985, 0.99, 0.9925, 0.995, 0.9975, 0.999]


# ---------------------------------------------------------------- scoring

def rule_categories(rows: list[dict]) -> list[tuple[tuple[str, str | None], ...]]:
    """What rule_shape judges of each text: each reading (the text, and its plain reading if
    it has inline markup: markup.readings) with the key of the rule that matches it (the
    model's r:<key> feature)."""
    return [judged_readings(row["text"]) for row in rows]


def probabilities(model: gate_model.GateModel, rows: list[dict],
                  rules: list[tuple]) -> list[float]:
    """rule_shape's probability of each text: the model's, with the matching rule's weight,
    of its likelier reading."""
    return [judged(model, readings)[0] for readings in rules]


def trusted_of(model: gate_model.GateModel, rules: list[tuple]) -> list[bool]:
    """Whether a trusted rule matches a reading of each text (it holds on its own)."""
    return [judged(model, readings)[1] for readings in rules]


def counts(rows: list[dict], flagged: list[bool], key) -> dict[str, Counter]:
    """Per key(row): attacks, caught, benign, false_positives."""
    table: dict[str, Counter] = defaultdict(Counter)
    for row, hit in zip(rows, flagged):
        c = table[key(row)]
        if row["label"] == "attack":
            c["attacks"] += 1
            c["caught"] += hit
        else:
            c["benign"] += 1
            c["false_positives"] += hit
    return dict(table)


def in_corpus(rows: list[dict], model: gate_model.GateModel | None = None) -> dict:
    """The in-corpus figures: per label and per category, for the combined detector."""
    model = model or gate_model.shipped()
    rules = rule_categories(rows)
    flagged = [tr or p >= model.threshold
               for tr, p in zip(trusted_of(model, rules), probabilities(model, rows, rules))]
    total = counts(rows, flagged, lambda r: "all")["all"]
    return {"recall": round(total["caught"] / total["attacks"], 3),
            "fpr": round(total["false_positives"] / total["benign"], 3),
            "caught": total["caught"], "attacks": total["attacks"],
            "false_positives": total["false_positives"], "benign": total["benign"],
            "by_category": counts(rows, flagged, lambda r: f"{r['label']}:{r['category']}")}


# ---------------------------------------------------------------- printing

def ratio(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "  -  "


def print_table(title: str, table: dict[str, Counter], total_name: str = "pooled") -> None:
    print(f"{title:<34}{'attacks':>8}{'caught':>8}{'recall':>8}{'benign':>8}{'false+':>8}"
          f"{'FPR':>8}")
    for name in sorted(table):
        c = table[name]
        print(f"{name:<34}{c['attacks']:>8}{c['caught']:>8}{ratio(c['caught'], c['attacks']):>8}"
              f"{c['benign']:>8}{c['false_positives']:>8}"
              f"{ratio(c['false_positives'], c['benign']):>8}")
    c = sum(table.values(), Counter())
    print(f"{total_name:<34}{c['attacks']:>8}{c['caught']:>8}{ratio(c['caught'], c['attacks']):>8}"
          f"{c['benign']:>8}{c['false_positives']:>8}{ratio(c['false_positives'], c['benign']):>8}")


def print_calibration(rows, probs, trusted) -> None:
    attacks = sum(r["label"] == "attack" for r in rows)
    benign = len(rows) - attacks
    print(f"{'threshold':>9}{'recall':>8}{'FPR':>8}{'caught':>8}{'false+':>8}"
          f"{'worst origin recall':>23}{'worst origin FPR':>24}")
    for t in THRESHOLDS:
        flags = [tr or p >= t for p, tr in zip(probs, trusted)]
        caught = sum(f for f, row in zip(flags, rows) if row["label"] == "attack")
        fp = sum(f for f, row in zip(flags, rows) if row["label"] == "benign")
        per = counts(rows, flags, lambda r: r["origin"])
        worst_recall = min((c["caught"] / c["attacks"], o) for o, c in per.items() if c["attacks"])
        worst_fpr = max((c["false_positives"] / c["benign"], o) for o, c in per.items()
                        if c["benign"])
        mark = "  <- shipped" if abs(t - td.THRESHOLD) < 1e-9 else ""
        print(f"{t:>9.4f}{caught / attacks:>8.3f}{fp / benign:>8.3f}{caught:>8}{fp:>8}"
              f"{worst_recall[0]:>9.3f} {worst_recall[1]:<13.13}{worst_fpr[0]:>10.3f} "
              f"{worst_fpr[1]:<13.13}{mark}")


def print_misses(rows, flagged, probs, per_origin: int = 3) -> None:
    by_origin = defaultdict(list)
    for row, hit, p in zip(rows, flagged, probs):
        if row["label"] == "attack" and not hit:
            by_origin[row["origin"]].append((p, row))
    print("Missed attacks (LOOO), the closest calls first, per origin:")
    for origin in sorted(by_origin):
        for p, row in sorted(by_origin[origin], key=lambda x: -x[0])[:per_origin]:
            print(f"  {origin:<18}{row['category']:<20}{p:.2f}  {_clip(row['text'])}")
    print("False positives (LOOO), the most confident first:")
    fps = sorted(((p, row) for row, hit, p in zip(rows, flagged, probs)
                  if row["label"] == "benign" and hit), key=lambda x: -x[0])
    for p, row in fps[:15]:
        print(f"  {row['origin']:<18}{row['category']:<20}{p:.2f}  {_clip(row['text'])}")


def _clip(text: str, n: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 1] + "…"


# ---------------------------------------------------------------- throughput

def memory_values(rows: list[dict], count: int, seed: int = 7) -> list[str]:
    """Typical memory-sized values: corpus texts (9 benign to 1 attack) cut at a word
    boundary to a length drawn between 10 and 300 characters, and short structured values
    (names, dates, e-mail addresses, amounts) — every value 10-300 characters."""
    rng = random.Random(seed)
    benign = [r["text"] for r in rows if r["label"] == "benign"]
    attacks = [r["text"] for r in rows if r["label"] == "attack"]
    structured = [
        lambda: f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T10:0{rng.randint(0, 9)}:00Z",
        lambda: f"user{rng.randint(1, 999)}.name@example.com",
        lambda: f"+44 20 7946 0{rng.randint(100, 999)}",
        lambda: f"Invoice INV-{rng.randint(1000, 9999)} paid: EUR {rng.randint(10, 9999)}.00",
        lambda: f"Prefers {rng.choice(['tea', 'coffee', 'email', 'phone calls'])} in the "
                f"{rng.choice(['morning', 'afternoon', 'evening'])}",
    ]
    values = []
    while len(values) < count:
        pick = rng.random()
        if pick < 0.2:
            text = rng.choice(structured)()
        else:
            text = " ".join(rng.choice(attacks if pick < 0.28 else benign).split())
            cut = rng.randint(10, 300)
            if len(text) > cut:
                text = text[:cut].rsplit(" ", 1)[0] if " " in text[10:cut] else text[:cut]
        if 10 <= len(text) <= 300:
            values.append(text)
    return values


def gate_text_path(text: str) -> bool:
    """What the gate asks of each string of a value: secret, then instruction."""
    return secret(text) is not None or rule_shape(text) is not None


def print_speed(rows: list[dict], count: int) -> float:
    values = memory_values(rows, count)
    gate_model.shipped()                        # loading is timed separately
    for text in values[:2000]:                  # warm the word caches as a running gate has
        gate_text_path(text)
    started, cpu = time.perf_counter(), time.process_time()
    held = sum(map(gate_text_path, values))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    rate = count / cpu
    mean = sum(map(len, values)) / len(values)
    print(f"gate text path (secret + rules + model): {count:,} values, mean {mean:.0f} chars: "
          f"{count / elapsed:,.0f} values/s wall, {rate:,.0f} values/s of CPU time "
          f"({held:,} held; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    for name, fn in (("rules", rules_finding), ("model", gate_model.shipped().logit),
                     ("secret", secret)):
        cpu = time.process_time()
        for text in values:
            fn(text)
        print(f"  {name:<8}{count / (time.process_time() - cpu):>12,.0f} values/s of CPU alone")
    # A feed at once, as ingest asks it (detect/batch.py: shared with a child process a
    # core, each starting with cold word caches; nothing caches a whole text's answer).
    started = time.perf_counter()
    answers = batch.judge(values, values)
    elapsed = time.perf_counter() - started
    held = sum(answers.secrets[t] is not None or answers.rules[t] is not None for t in values)
    print(f"gate on a batch (detect.batch.judge, {min(batch.PARTS, os.cpu_count() or 1)} "
          f"processes): {count:,} values in {elapsed:.2f} s wall = {count / elapsed:,.0f} values/s "
          f"({held:,} held)")
    return rate


UNSEEN = ROOT / "tests" / "corpus" / "unseen"


def unseen_rows(training: list[dict]) -> list[dict]:
    """The origins under tests/corpus/unseen/ (never trained on), without any text the
    training corpus also holds (normalized as load_rows does)."""
    known = {td.text_key(r["text"]) for r in training}
    return [r for r in td.load_rows(UNSEEN, legacy=None) if td.text_key(r["text"]) not in known]


def unseen(training: list[dict], model: gate_model.GateModel | None = None) -> dict:
    """The shipped model (and its trusted rules) on origins it never saw: pooled figures at
    its threshold, per origin and per category, and each row's probability."""
    model = model or gate_model.shipped()
    rows = unseen_rows(training)
    rules = rule_categories(rows)
    probs = probabilities(model, rows, rules)
    trusted = trusted_of(model, rules)
    flagged = [tr or p >= model.threshold for tr, p in zip(trusted, probs)]
    total = counts(rows, flagged, lambda r: "all").get("all", Counter())
    return {"recall": round(total["caught"] / total["attacks"], 3) if total["attacks"] else None,
            "fpr": (round(total["false_positives"] / total["benign"], 3)
                    if total["benign"] else None),
            "caught": total["caught"], "attacks": total["attacks"],
            "false_positives": total["false_positives"], "benign": total["benign"],
            "origins": sorted({r["origin"] for r in rows}),
            "rows": rows, "probs": probs, "trusted": trusted, "flagged": flagged}


def print_unseen(training: list[dict], model: gate_model.GateModel) -> None:
    found = unseen(training, model)
    rows = found["rows"]
    if not rows:
        print("4. UNSEEN ORIGINS: none under tests/corpus/unseen/")
        return
    print(f"4. UNSEEN ORIGINS (tests/corpus/unseen/: the shipped model, which never trained on "
          f"them; {len(rows)} texts from {len(found['origins'])} origins)")
    print(f"   recall {found['recall']:.3f} ({found['caught']}/{found['attacks']})  "
          f"FPR {found['fpr']:.3f} ({found['false_positives']}/{found['benign']}) "
          f"at the shipped threshold {model.threshold}")
    print_table("origin", counts(rows, found["flagged"], lambda r: r["origin"]))
    print()
    print_table("category", counts(rows, found["flagged"],
                                   lambda r: f"{r['label']}:{r['category']}"))
    print()
    print("   calibration on the unseen origins (read it, never choose the threshold on it):")
    print_calibration(rows, found["probs"], found["trusted"])
    print()


def print_model_file() -> None:
    path = td.MODEL_PATH
    started = time.perf_counter()
    model = gate_model.from_json(path.read_bytes())
    loaded = time.perf_counter() - started
    weights = sum(map(len, (model._w, model._c, *model._next.values(), model._s, model._h)))
    print(f"model file {path.relative_to(ROOT)}: {path.stat().st_size:,} bytes, "
          f"{weights:,} weights, loads in {loaded * 1000:.0f} ms; threshold {model.threshold}; "
          f"corpus digest {model.corpus_digest[:12]}")


# ---------------------------------------------------------------- main

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed", type=int, default=100_000, help="values to time (0: skip)")
    parser.add_argument("--no-looo", action="store_true", help="skip leave-one-origin-out")
    parser.add_argument("--save", type=Path, help="write each text's LOOO probability here")
    parser.add_argument("--with-unseen", action="store_true",
                        help="leave-one-origin-out over the training origins and the unseen "
                             "ones together (what training on both would measure), with the "
                             "calibration of the training origins alone beside it")
    args = parser.parse_args()
    rows = td.load_rows()
    model = gate_model.shipped()
    labels = Counter((r["origin"], r["label"]) for r in rows)
    print(f"Corpus: {len(rows)} texts, {sum(r['label'] == 'attack' for r in rows)} attacks, "
          f"{sum(r['label'] == 'benign' for r in rows)} benign, from "
          f"{len({r['origin'] for r in rows})} origins; digest {td.corpus_digest(rows)[:12]} "
          f"(model trained on {model.corpus_digest[:12]})")
    for origin in sorted({r["origin"] for r in rows}):
        print(f"  {origin:<28}{labels[(origin, 'attack')]:>6} attacks "
              f"{labels[(origin, 'benign')]:>6} benign")
    print()
    print_model_file()
    print()

    rules = rule_categories(rows)
    shipped = probabilities(model, rows, rules)
    flagged = [tr or p >= model.threshold for tr, p in zip(trusted_of(model, rules), shipped)]
    print("1. IN-CORPUS (shipped model, trained on all of it; trusted rules "
          f"{', '.join(sorted(model.trusted_rules))})")
    figures = in_corpus(rows, model)
    print(f"   recall {figures['recall']:.3f} ({figures['caught']}/{figures['attacks']})  "
          f"FPR {figures['fpr']:.3f} ({figures['false_positives']}/{figures['benign']})")
    print_table("category", counts(rows, flagged, lambda r: f"{r['label']}:{r['category']}"),
                "all")
    print()
    print("   for comparison, a rule matching alone (no model), by origin:")
    print_table("origin", counts(rows, [any(rule for _, rule in readings) for readings in rules],
                                 lambda r: r["origin"]))
    print()
    if args.no_looo:
        print_unseen(rows, model)
        speed(args, rows)
        return 0

    print("2. LEAVE-ONE-ORIGIN-OUT (each origin scored by a model trained on the others)")
    trained = len(rows)        # the training origins' rows come first
    if args.with_unseen:
        extra = unseen_rows(rows)
        rows, rules = rows + extra, rules + rule_categories(extra)
        print(f"   over {len(rows)} texts: the training origins and those of {UNSEEN}")
    probs, trusted = looo_probabilities(rows, rules)
    if args.save:
        args.save.write_text(json.dumps([{"origin": r["origin"], "label": r["label"],
                                          "category": r["category"], 
                                          "rule": [key for _, key in rule],
                                          "p": p, "trusted": tr, "text": r["text"][:300]}
                                         for r, rule, p, tr in zip(rows, rules, probs, trusted)]))
    looo = [tr or p >= td.THRESHOLD for p, tr in zip(probs, trusted)]
    print(f"\n   at the shipped threshold {td.THRESHOLD}, per origin:")
    print_table("origin", counts(rows, looo, lambda r: r["origin"]))
    print("\n   per category (pooled over the folds):")
    print_table("category", counts(rows, looo, lambda r: f"{r['label']}:{r['category']}"))
    print()
    print("3. CALIBRATION (pooled LOOO predictions)")
    print_calibration(rows, probs, trusted)
    print()
    if args.with_unseen:
        print("   the training origins alone (each scored by a model that also learnt the unseen "
              "origins):")
        print_calibration(rows[:trained], probs[:trained], trusted[:trained])
        print()
    print_misses(rows, looo, probs)
    if args.with_unseen:       # the unseen origins were trained on: section 4 would not hold
        return 0
    print()
    print_unseen(rows, model)
    speed(args, rows)
    return 0


def speed(args: argparse.Namespace, rows: list[dict]) -> None:
    """5. Throughput, when --speed N asks for it (with or without --no-looo)."""
    if args.speed:
        print("5. THROUGHPUT")
        print_speed(rows, args.speed)


if __name__ == "__main__":
    sys.exit(main())
