"""Benchmark: long justification chains and wide keys, the shapes a quadratic walk cannot survive.

    python bench/bench_deep_lineage.py                 # depth 20,000
    python bench/bench_deep_lineage.py --depth 5000

Stores (written under bench/out/deep-*, chained for real, with bench/synth.py's writer):
- chain:   C0 an observation, C1..C(n-1) summaries, each citing the one before (other keys);
- samekey: the same chain, all about one key (the rule looks for an ancestor that disagrees);
- rolling: n/2 rolling summaries, each citing the one before and a new observation (what an
           agent summarizing its day writes; `scan` looks for single-source echoes);
- perkey:  n/3 days of an observation, a summary of its key and a rolling summary citing that
           summary and the day before (the rule looks below each summary for an observation
           of its own key that disagrees);
- widekey: one key held in n scopes (a setting every tenant overrides), and a global entry;
- keysums: n/3 days of an observation of one of 1,000 keys, a rolling summary citing it and
           the day before, and a summary of the key citing the rolling summary; ten keys
           change value halfway (their later summaries rest on the old value: unsupported).
Each figure is one `python -m inspector …` process after the first command has written the
view: `beliefs`, `show` of the top, `lineage` of the bottom, `conflicts`, `scan`, and `diff`
from before the first write (every entry written in the window), with peak RSS.

Before the walks were made linear (2026-12-02), a 20,000-deep chain made `beliefs` fail after
110 s at 19 GB, `show` take 49 s, and 10,000 rolling summaries made `scan` take 69 s at 16 GB;
20,000 scopes of one key made `beliefs` and `conflicts` take 14-16 s. Before its causes were
bounded, `diff` over a 2,000-deep chain took 32 s and 6 GB for 440 MB of JSON. Before only
keys holding two or more values were walked for contradictions, keysums over 20,000 days
(60,000 entries) made `beliefs` take 134 s and 15 GB. Not a test: it prints, it does not judge.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from bench_view import run  # noqa: E402
from synth import Writer, entry  # noqa: E402


def chain(w: Writer, n: int, same_key: bool) -> tuple[str, str]:
    attribute = (lambda i: "k") if same_key else (lambda i: f"a{i}")
    w.emit("write", entry("C0", "svc", attribute(0), 1, "observation", "tool:x", "", w.stamp(), 1),
           "agent:1")
    for i in range(1, n):
        w.emit("write", entry(f"C{i}", "svc", attribute(i), 1, "summary", "agent:1", "", w.stamp(), 1,
                              justification=[f"C{i - 1}"]), "agent:1")
    return f"C{n - 1}", "C0"


def rolling(w: Writer, n: int) -> tuple[str, str]:
    for i in range(n // 2):
        w.emit("write", entry(f"O{i}", "svc", f"o{i}", i, "observation", "tool:x", "", w.stamp(), 1),
               "agent:1")
        cites = [f"O{i}"] + ([f"R{i - 1}"] if i else [])
        w.emit("write", entry(f"R{i}", "svc", "rolling", f"day {i}", "summary", "agent:1", "",
                              w.stamp(), 1, justification=cites), "agent:1")
    return f"R{n // 2 - 1}", "O0"


def perkey(w: Writer, n: int) -> tuple[str, str]:
    for i in range(n // 3):
        w.emit("write", entry(f"O{i}", "svc", f"o{i}", i, "observation", "tool:x", "", w.stamp(), 1),
               "agent:1")
        w.emit("write", entry(f"S{i}", "svc", f"o{i}", i, "summary", "agent:1", "", w.stamp(), 1,
                              justification=[f"O{i}"]), "agent:1")
        cites = [f"S{i}"] + ([f"R{i - 1}"] if i else [])
        w.emit("write", entry(f"R{i}", "svc", "rolling", f"day {i}", "summary", "agent:1", "",
                              w.stamp(), 1, justification=cites), "agent:1")
    return f"R{n // 3 - 1}", "O0"


def widekey(w: Writer, n: int) -> tuple[str, str]:
    w.emit("write", entry("G", "svc", "theme", "light", "observation", "tool:x", "", w.stamp(), 1),
           "agent:1")
    for i in range(1, n):
        w.emit("write", entry(f"T{i}", "svc", "theme", "dark", "observation", f"tool:t{i}",
                              f"tenant:t{i}", w.stamp(), i % 3), "agent:1")
    return f"T{n - 1}", "G"


def keysums(w: Writer, n: int) -> tuple[str, str]:
    days = n // 3
    for i in range(days):
        key = f"k{i % 1000}"
        value = f"{key} new" if i >= days // 2 and i % 1000 < 10 else key
        w.emit("write", entry(f"O{i}", "user", key, value, "observation", "tool:x", "", w.stamp(), 1),
               "agent:1")
        w.emit("write", entry(f"R{i}", "user", "rolling", f"day {i}", "summary", "agent:1", "",
                              w.stamp(), 1, justification=[f"O{i}"] + ([f"R{i - 1}"] if i else [])),
               "agent:1")
        w.emit("write", entry(f"S{i}", "user", key, value, "summary", "agent:1", "", w.stamp(), 1,
                              justification=[f"R{i}"]), "agent:1")
    return f"S{days - 1}", "O0"


SHAPES = {"chain": lambda w, n: chain(w, n, False), "samekey": lambda w, n: chain(w, n, True),
          "rolling": rolling, "perkey": perkey, "widekey": widekey, "keysums": keysums}


def build(shape: str, depth: int) -> tuple[Path, str, str]:
    root = HERE / "out" / f"deep-{shape}-{depth}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(mode=0o700, parents=True)
    w = Writer(root / "events.jsonl", random.Random(1))
    top, bottom = SHAPES[shape](w, depth)
    w.out.close()
    (root / "events.jsonl").chmod(0o600)
    return root, top, bottom


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=20_000)
    depth = ap.parse_args().depth
    print(f"{'store':<10} {'command':<34} {'seconds':>8} {'peak MB':>8}")
    for shape in SHAPES:
        root, top, bottom = build(shape, depth)
        run("held", str(root), "--json")           # the first command writes the view
        for args in (("beliefs",), ("show", top), ("lineage", bottom), ("conflicts",), ("scan",),
                     ("diff", "--from", "2000-01-01T00:00:00Z")):
            seconds, mb = run(args[0], str(root), *args[1:], "--json")
            print(f"{shape:<10} {' '.join(args):<34} {seconds:8.2f} {mb:8d}")


if __name__ == "__main__":
    main()
