"""Benchmark: stores whose entries cite many others (a dense justification graph): not a test.

    python bench/bench_dense.py                  # 2,000 and 3,000 entries, each citing 60
    python bench/bench_dense.py --entries 5000 --cites 40

Two shapes, each in a fresh temporary directory:
- mixed: a third each observations, inferences and summaries, every entry citing `--cites`
  random earlier ones, 50 entities x 7 attributes, ingested through the gate (which holds the
  summaries it would not support) by a trusted operator;
- adversarial: observations and summaries only, written straight to the log (no gate), so that
  every summary is supported but for contradictions and the support walk must look below each
  one for the values of its own key.
Each figure is one `python -m inspector …` process timed from outside with its peak RSS
(/usr/bin/time): ingest (mixed), then show of the last entry, beliefs and scan. The support walk
(DESIGN §3.2) is what these stress: before stop 59 the mixed store of 3,000 took 35-56 s per
command. The adversarial one is still keys x citations (the closing note of stop 59).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from bench_view import TIME  # noqa: E402


def run(*args: str) -> tuple[float, int]:
    proc = subprocess.run([TIME, "-f", "BENCH %e %M", sys.executable, "-m", "inspector", *args],
                          capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{args[0]} failed ({proc.returncode}): {proc.stderr[-800:]}")
    _, seconds, kb = [line for line in proc.stderr.splitlines() if line.startswith("BENCH ")][-1].split()
    return float(seconds), round(int(kb) / 1024)


def entry(i: int, kinds: list[str], rng: random.Random, cites: int) -> dict:
    justification = rng.sample([f"D{j}" for j in range(i)], min(i, cites)) if i >= 5 else []
    return {"id": f"D{i}", "entity": f"svc:{i % 50}", "attribute": f"a{i % 7}", "value": f"v{i}",
            "kind": "observation" if i < 5 else rng.choice(kinds), "source": "operator:ops",
            "scope": "tenant:t", "justification": justification,
            "observed_at": f"2025-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"}


def mixed(root: Path, n: int, cites: int) -> dict:
    rng = random.Random(1)
    feed = root.parent / "feed.jsonl"
    with open(feed, "w") as f:
        for i in range(n):
            f.write(json.dumps(entry(i, ["summary", "inference", "observation"], rng, cites)) + "\n")
    subprocess.run([sys.executable, "-m", "inspector", "init", str(root)], check=True,
                   capture_output=True)
    return {"ingest": run("ingest", str(root), str(feed), "--actor", "operator:ops")}


def adversarial(root: Path, n: int, cites: int) -> dict:
    from inspector.store.append import LogWriter, event_draft, init_store
    from inspector.store.model import ENTRY_DEFAULTS
    rng = random.Random(2)
    drafts = [event_draft("write", f"D{i}", "agent:bench", after={
        **ENTRY_DEFAULTS, **entry(i, ["summary", "observation"], rng, cites), "status": "active"})
        for i in range(n)]
    with LogWriter(init_store(root)) as writer:
        writer.append(drafts)
    return {}


def measure(shape, n: int, cites: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-dense-") as work:
        root = Path(work) / "store"
        row = shape(root, n, cites)
        row["show"] = run("show", str(root), f"D{n - 1}", "--json")
        row["beliefs"] = run("beliefs", str(root), "--json")
        row["scan"] = run("scan", str(root), "--json")
        return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, nargs="*", default=[2000, 3000])
    parser.add_argument("--cites", type=int, default=60)
    args = parser.parse_args()
    print(f"{'shape':<12} {'entries':>7}  {'command':<8} {'seconds':>8} {'peak MB':>8}")
    for n in args.entries:
        for name, shape in (("mixed", mixed), ("adversarial", adversarial)):
            for command, (seconds, mb) in measure(shape, n, args.cites).items():
                print(f"{name:<12} {n:>7}  {command:<8} {seconds:>8.2f} {mb:>8}", flush=True)


if __name__ == "__main__":
    main()
