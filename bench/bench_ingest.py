"""Benchmark: `inspector ingest` of a large feed, as an agent's bulk write or an import meets
it: N memory-sized values (bench/detector_report.memory_values: corpus texts cut to 10-300
characters and short structured values) from an untrusted web source, into a store already
holding N entries, half of which the feed updates.

    python bench/bench_ingest.py            # 20,000 lines
    python bench/bench_ingest.py 100000

Each figure is one `python -m inspector ingest` process timed from outside, with its peak
RSS. Until stop 23 the planner asked the store for each line's current state on its own
(2 ms a query: 47 s for 20,000 lines before any gating). Not a test: it prints.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import detector_report as dr  # noqa: E402
import train_detector as td  # noqa: E402


def feed(path: Path, values: list[str], offset: int) -> None:
    with path.open("w") as out:
        for n, value in enumerate(values):
            out.write(json.dumps({"id": f"m{n + offset}", "entity": f"user:{n % 997}",
                                  "attribute": f"note{n % 31}", "value": value,
                                  "source": "web:news.example", "kind": "observation",
                                  "observed_at": "2026-11-01T10:00:00Z"}) + "\n")


def timed(*args: str) -> tuple[float, int, str]:
    proc = subprocess.run(["/usr/bin/time", "-f", "BENCH %e %M", sys.executable, "-m",
                           "inspector", *args], capture_output=True, text=True)
    seconds, kb = [line for line in proc.stderr.splitlines()
                   if line.startswith("BENCH ")][-1].split()[1:]
    return float(seconds), int(kb) // 1024, proc.stdout


def main(count: int) -> None:
    values = dr.memory_values(td.load_rows(), 2 * count)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "store"
        subprocess.run([sys.executable, "-m", "inspector", "init", str(root)], check=True,
                       capture_output=True)
        first, second = Path(scratch) / "first.jsonl", Path(scratch) / "second.jsonl"
        feed(first, values[:count], 0)
        feed(second, values[count:], count // 2)         # half updates, half new ids
        print(f"{count:,} lines a feed, mean {sum(map(len, values)) / len(values):.0f} chars "
              f"a value; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        for name, path in (("into an empty store", first), ("half updates", second)):
            seconds, mb, out = timed("ingest", str(root), str(path), "--json")
            result = json.loads(out)
            print(f"ingest {name:<20} {seconds:6.2f} s  {count / seconds:8,.0f} lines/s  "
                  f"{mb:5d} MB   written {result['written']:,} updated {result['updated']:,} "
                  f"held {result['held']:,}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
