"""How well and how fast the detectors work: a report, not a test.

    .venv/bin/python bench/detector_report.py [--strings 1000000]

Part 1 scores rule_shape on the labelled corpus (tests/corpus/rule_shape.jsonl):
for each attack category, its benign look-alikes (benign_<category>) are the
negatives. precision = caught / (caught + false positives), recall = caught /
attacks, FPR = false positives / benign; "same cat" is how many caught attacks
got the corpus's own category. The corpus is also split the way it was for the
held-out check (every 5th line held out) so later changes can be judged on both.

Part 2 times all three detectors over short memory-like strings: words, numbers,
timestamps, e-mails, phone numbers, short sentences and the corpus texts.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from inspector.store.detect import pii, rule_shape, secret  # noqa: E402

CORPUS = ROOT / "tests" / "corpus" / "rule_shape.jsonl"
WORDS = ("the user prefers tea coffee Leeds London meeting Tuesday invoice order project budget "
         "team deploy branch main refund window days timezone plan owner Alice Bob always sends "
         "report every Monday weekly notes train platform office closes early Friday").split()


def load_corpus() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]


def score(rows: list[dict]) -> dict[str, Counter]:
    """Per attack category: attacks, caught, same_category, benign, false_positives."""
    table: dict[str, Counter] = {}
    for row in rows:
        found = rule_shape(row["text"])
        attack = row["label"] == "attack"
        category = row["category"] if attack else row["category"].removeprefix("benign_")
        counts = table.setdefault(category, Counter())
        counts["attacks" if attack else "benign"] += 1
        counts["caught" if attack else "false_positives"] += found is not None
        counts["same_category"] += bool(attack and found and found.category == category)
    return table


def ratio(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "  -  "


def line(name: str, c: Counter) -> str:
    caught, fp = c["caught"], c["false_positives"]
    return (f"{name:<20}{c['attacks']:>8}{caught:>8}{c['same_category']:>10}{c['benign']:>8}"
            f"{fp:>8}{ratio(caught, caught + fp):>11}{ratio(caught, c['attacks']):>8}"
            f"{ratio(fp, c['benign']):>8}")


def print_quality(rows: list[dict]) -> None:
    table = score(rows)
    print(f"{'category':<20}{'attacks':>8}{'caught':>8}{'same cat':>10}{'benign':>8}"
          f"{'false+':>8}{'precision':>11}{'recall':>8}{'FPR':>8}")
    for name in sorted(table):
        print(line(name, table[name]))
    print(line("overall", sum(table.values(), Counter())))


def print_split(rows: list[dict]) -> None:
    halves = {"dev (4 of 5 lines)": [r for i, r in enumerate(rows) if i % 5 != 4],
              "held-out (every 5th)": [r for i, r in enumerate(rows) if i % 5 == 4]}
    for name, part in halves.items():
        total = sum(score(part).values(), Counter())
        caught, attacks = total["caught"], total["attacks"]
        false_positives, benign = total["false_positives"], total["benign"]
        print(f"{name:<22} recall {ratio(caught, attacks)} ({caught}/{attacks})  "
              f"FPR {ratio(false_positives, benign)} ({false_positives}/{benign})")


def sample_strings(count: int, corpus: list[str]) -> list[str]:
    """Memory-like short values, deterministic."""
    rng = random.Random(7)
    makers = [
        lambda: rng.choice(WORDS),
        lambda: str(rng.randint(0, 10 ** 6)),
        lambda: f"2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T10:0{rng.randint(0, 9)}:00Z",
        lambda: f"{rng.choice(WORDS).lower()}.{rng.choice(WORDS).lower()}@example.com",
        lambda: f"+44 20 7946 0{rng.randint(100, 999)}",
        lambda: " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))).capitalize() + ".",
        lambda: " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))).capitalize() + ".",
        lambda: rng.choice(corpus),
    ]
    return [rng.choice(makers)() for _ in range(count)]


def print_speed(count: int, corpus: list[str]) -> None:
    strings = sample_strings(count, corpus)
    total = 0.0
    for name, detector in (("rule_shape", rule_shape), ("secret", secret), ("pii", pii)):
        started = time.perf_counter()
        for text in strings:
            detector(text)
        elapsed = time.perf_counter() - started
        total += elapsed
        print(f"{name:<12}{elapsed:7.2f} s  {count / elapsed:>12,.0f} strings/s")
    print(f"{'all three':<12}{total:7.2f} s  {count / total:>12,.0f} strings/s  "
          f"({count:,} strings)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strings", type=int, default=1_000_000,
                        help="how many strings to time (default 1,000,000)")
    args = parser.parse_args()
    rows = load_corpus()
    print(f"rule_shape on {CORPUS.relative_to(ROOT)} ({len(rows)} lines)\n")
    print_quality(rows)
    print()
    print_split(rows)
    print()
    print_speed(args.strings, [row["text"] for row in rows])
    return 0


if __name__ == "__main__":
    sys.exit(main())
