"""Benchmark: `audit --verify` against the DuckDB `read_json` floor of the same log (not a test).

    python bench/bench_verify.py                        # the two bench stores below
    python bench/bench_verify.py STORE_DIR …            # other stores
    python bench/bench_verify.py --repeat 5 --reference STORE_DIR

For each store, every measurement in a fresh process, repeated and interleaved (median
reported): the time DuckDB alone takes to read_json the log into a table (the floor, the
statement of bench_load.py), the wall time of `python -m inspector audit STORE --verify
--json` (the command as an operator runs it, interpreter start and imports included), the
ratio, and the peak RSS of the largest process of the verify (the command or one of its
workers). Then, once, `audit.verify` called in a process of its own, with the peak RSS of
that process and of its workers apart. `--reference` also times the sequential reference
walk (`audit.verify_sequential`), which is the speed of `audit --verify` before it was split.
The target (issue 12) is verify ≤ 4× the floor.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_STORES = ["/work/bench-stores/store-100k", "/work/bench-stores/store-1m"]
FLOOR = """CREATE TABLE floor AS SELECT * FROM read_json(?, format = 'newline_delimited',
    columns = {'seq': 'BIGINT', 'at': 'TIMESTAMPTZ', 'actor': 'VARCHAR', 'op': 'VARCHAR',
               'memory_id': 'VARCHAR', 'batch': 'VARCHAR', 'body': 'JSON',
               'body_digest': 'VARCHAR', 'prev': 'VARCHAR', 'hash': 'VARCHAR'})"""


def _child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                         cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit(out.stderr.strip() or out.stdout.strip())
    return json.loads(out.stdout.strip().splitlines()[-1])


def floor_once(store: str) -> dict:
    import duckdb

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    start = time.perf_counter()
    con.execute(FLOOR, [str(Path(store) / "events.jsonl")])
    return {"floor_s": time.perf_counter() - start}


def cli_once(store: str) -> dict:
    """The command as an operator runs it; RUSAGE_CHILDREN's maxrss is the largest of the
    command's process and its workers (they are waited for inside it)."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "inspector", "audit", store, "--verify", "--json"],
                         capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    if out.returncode not in (0, 1):
        raise SystemExit(out.stderr.strip())
    doc = json.loads(out.stdout)
    return {"verify_s": wall, "ok": doc["ok"], "events": doc["events"],
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def inprocess_once(store: str, reference: bool) -> dict:
    sys.path.insert(0, str(ROOT))
    from inspector.store import audit, verify_parallel
    from inspector.store.logfile import store_paths

    paths = store_paths(store)
    stats = verify_parallel.Stats()
    start = time.perf_counter()
    report = verify_parallel.verify(paths, stats=stats)
    took = time.perf_counter() - start
    doc = {"verify_call_s": took, "chunks": stats.chunks, "workers": stats.workers,
           "slow_lines": stats.slow, "rounds": stats.rounds,
           "parent_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "worker_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}
    if reference:
        start = time.perf_counter()
        same = audit.verify_sequential(paths).as_json() == report.as_json()
        doc.update(reference_s=time.perf_counter() - start, reference_equal=same)
    return doc


def measure(store: str, repeat: int, reference: bool) -> dict:
    floors, runs = [], []
    for _ in range(repeat):             # interleaved: both see the same load on a shared host
        floors.append(_child("--floor", store)["floor_s"])
        runs.append(_child("--cli", store))
    floor = statistics.median(floors)
    verify = statistics.median(r["verify_s"] for r in runs)
    doc = {"store": store, "events": runs[0]["events"], "ok": runs[0]["ok"],
           "log_mb": round((Path(store) / "events.jsonl").stat().st_size / 2**20),
           "floor_s": round(floor, 2), "verify_s": round(verify, 2),
           "ratio": round(verify / floor, 2),
           "verify_runs_s": [round(r["verify_s"], 2) for r in runs],
           "floor_runs_s": [round(f, 2) for f in floors],
           "peak_rss_mb": round(max(r["peak_rss_mb"] for r in runs))}
    inner = _child("--inprocess", store, *(["--reference"] if reference else []))
    doc.update({k: round(v, 2) if isinstance(v, float) else v for k, v in inner.items()})
    return doc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="*", default=DEFAULT_STORES)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference", action="store_true",
                        help="also time the sequential reference walk (slow)")
    parser.add_argument("--floor", metavar="STORE", help=argparse.SUPPRESS)
    parser.add_argument("--cli", metavar="STORE", help=argparse.SUPPRESS)
    parser.add_argument("--inprocess", metavar="STORE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        print(json.dumps(floor_once(args.floor)))
    elif args.cli:
        print(json.dumps(cli_once(args.cli)))
    elif args.inprocess:
        print(json.dumps(inprocess_once(args.inprocess, args.reference)))
    else:
        for store in args.stores:
            print(json.dumps(measure(store, args.repeat, args.reference)), flush=True)


if __name__ == "__main__":
    main()
