"""Benchmark: loading, beliefs, paging and lineage on synthetic stores (not a test).

    python bench/bench_load.py                 # 100k and 1M events
    python bench/bench_load.py 100k 1m 5m      # sizes to run; stores are cached in bench/out/

For each size, in a fresh process: the time DuckDB alone takes to read_json the log into a
table (the floor), the inspector's full load and the ratio, events/s, the store-wide belief
view, pages of 50 belief rows, lineage of ROOT-10K (10,000 descendants), peak memory. At 1M
the plain-Python reference of the belief rule (tests/belief_reference.py) runs on the same
store for the ratio.
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))
SIZES = {"100k": 100_000, "1m": 1_000_000, "5m": 5_000_000}
FLOOR = """CREATE TABLE floor AS SELECT * FROM read_json(?, format = 'newline_delimited',
    columns = {'seq': 'BIGINT', 'at': 'TIMESTAMPTZ', 'actor': 'VARCHAR', 'op': 'VARCHAR',
               'memory_id': 'VARCHAR', 'batch': 'VARCHAR', 'body': 'JSON',
               'body_digest': 'VARCHAR', 'prev': 'VARCHAR', 'hash': 'VARCHAR'})"""


def store_for(label: str) -> Path:
    root = HERE / "out" / f"store-{label}"
    if not (root / "events.jsonl").exists():
        print(f"generating {label} events into {root} …", file=sys.stderr)
        subprocess.run([sys.executable, str(HERE / "synth.py"), "--events", str(SIZES[label]),
                        "--out", str(root)], check=True)
    return root


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def measure(label: str) -> dict:
    """Runs in its own process so that peak memory is this size's alone."""
    import duckdb

    from inspector.store import beliefs, lineage
    from inspector.store.load import Store

    root = store_for(label)
    log = root / "events.jsonl"
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    floor, _ = timed(lambda: con.execute(FLOOR, [str(log)]))
    con.close()
    load, store = timed(lambda: Store(root, warn=False))
    events = store.state.seq
    spec = beliefs.ViewSpec(None, beliefs.Moment.resolve())
    belief_time, rows = timed(lambda: beliefs.materialize(store.con, spec))
    pages = []
    for first in random.Random(1).sample(range(1, max(2, rows - 50)), 20):
        pages.append(timed(lambda: beliefs.page(store.con, first, first + 49))[0])
    lineage_time, found = timed(lambda: lineage.lineage(store.con, "ROOT-10K"))
    return {"size": label, "events": events, "log_mb": round(log.stat().st_size / 2**20),
            "floor_s": round(floor, 2), "load_s": round(load, 2), "ratio": round(load / floor, 2),
            "events_per_s": round(events / load), "beliefs_s": round(belief_time, 2),
            "belief_rows": rows, "page50_ms_p50": round(statistics.median(pages) * 1000, 1),
            "page50_ms_max": round(max(pages) * 1000, 1), "lineage_ms": round(lineage_time * 1000, 1),
            "descendants": len(found.descendants),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def reference_ratio(label: str) -> dict:
    """The same store-wide belief table by the plain-Python reference, vs. the SQL view."""
    import belief_reference as ref

    from inspector.store import beliefs
    from inspector.store.load import Store
    from inspector.store.model import parse_time

    root = store_for(label)
    store = Store(root, warn=False)
    spec = beliefs.ViewSpec(None, beliefs.Moment.resolve())
    sql_time, _ = timed(lambda: beliefs.materialize(store.con, spec))

    def python_pass():
        events = []
        with open(root / "events.jsonl", "rb") as f:
            for line in f:
                e = json.loads(line)
                a = e["body"]["after"]
                for name in ("observed_at", "valid_from", "valid_to"):
                    a[name + "_dt"] = parse_time(a[name]) if a.get(name) else None
                events.append({"seq": e["seq"], "at_dt": parse_time(e["at"]),
                               "memory_id": e["memory_id"], "after": a})
        st = ref.state_at(events, spec.moment.tk)
        return ref.belief_table(st, spec.moment.tk, spec.moment.tv)
    py_time, table = timed(python_pass)
    return {"size": label, "sql_beliefs_s": round(sql_time, 2), "python_reference_s": round(py_time, 2),
            "speedup": round(py_time / sql_time, 1), "rows": len(table)}


def main(labels: list[str]) -> None:
    for label in labels:
        store_for(label)
        out = subprocess.run([sys.executable, __file__, "--one", label], capture_output=True, text=True)
        print(out.stdout.strip() or out.stderr.strip())
        if label == "1m":
            out = subprocess.run([sys.executable, __file__, "--reference", label], capture_output=True, text=True)
            print(out.stdout.strip() or out.stderr.strip())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(measure(sys.argv[2])))
    elif sys.argv[1:2] == ["--reference"]:
        print(json.dumps(reference_ratio(sys.argv[2])))
    else:
        main([a.lower() for a in sys.argv[1:]] or ["100k", "1m"])
