"""Benchmark: keys held in many scopes at once (a key's global entries seen from every scope):
not a test.

    python bench/bench_scopes.py                             # 4 keys x (3,000 global + 1,500 scopes)
    python bench/bench_scopes.py --keys 2 --global 3000 --scopes 6000

On each key: `--global` observations in the global scope and one in each of `--scopes` scopes
(tenant:tN), from 1,000 sources, authority 0-2, so that most contexts are won by their own
entry and are vetoed or contested by the global ones. The store-wide belief table has a row
per (scope, key), each naming what vetoes or disagrees with its winner. Each figure is one
`python -m inspector …` process timed from outside with its peak RSS (/usr/bin/time), after a
first command has built the view: `beliefs --json` and `conflicts --json`, with the size of
what they print. Before stop 62 the rule ranked every global entry once per context (helper-82:
3,000 global entries under 1,500 scopes were 4.5M candidate rows); it ranks each scope once now.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from inspector.store.append import LogWriter, event_draft, init_store  # noqa: E402
from inspector.store.model import ENTRY_DEFAULTS  # noqa: E402

TIME = "/usr/bin/time"


def write(root: Path, keys: int, global_entries: int, scopes: int) -> int:
    paths = init_store(root)
    rng = random.Random(1)
    drafts = []
    for k in range(keys):
        for i in range(global_entries + scopes):
            state = {**ENTRY_DEFAULTS, "id": f"K{k}-{i}", "entity": f"repo:svc{k}",
                     "attribute": "owner", "value": f"team-{rng.randrange(50)}",
                     "kind": "observation", "source": f"agent:{rng.randrange(1000)}",
                     "authority": rng.randrange(3), "status": "active",
                     "observed_at": f"2024-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
                     "scope": "" if i < global_entries else f"tenant:t{i - global_entries}"}
            drafts.append(event_draft("write", state["id"], "agent:1", before=None, after=state))
    with LogWriter(paths) as writer:
        writer.append(drafts)
    return len(drafts)


def run(*args: str) -> tuple[float, int, int]:
    """(seconds, peak RSS in MB, bytes printed) of one inspector command."""
    proc = subprocess.run([TIME, "-f", "BENCH %e %M", sys.executable, "-m", "inspector", *args],
                          capture_output=True)
    last = [line for line in proc.stderr.decode().splitlines() if line.startswith("BENCH ")][-1]
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{args[0]} failed ({proc.returncode}): {proc.stderr[-800:]!r}")
    _, seconds, kb = last.split()
    return float(seconds), round(int(kb) / 1024), len(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=4)
    parser.add_argument("--global", dest="global_entries", type=int, default=3000)
    parser.add_argument("--scopes", type=int, default=1500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "store"
        events = write(root, args.keys, args.global_entries, args.scopes)
        print(f"{events:,} events: {args.keys} keys x ({args.global_entries:,} global entries + "
              f"one in each of {args.scopes:,} scopes)")
        seconds, mb, _ = run("held", str(root))
        print(f"  first command (builds the view)   {seconds:7.2f} s  {mb:6,} MB")
        for command in ("beliefs", "conflicts"):
            seconds, mb, size = run(command, str(root), "--json")
            print(f"  {command + ' --json':<33} {seconds:7.2f} s  {mb:6,} MB  "
                  f"({size / 1e6:,.1f} MB printed)")


if __name__ == "__main__":
    main()
