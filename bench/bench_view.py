"""Benchmark: the persistent view (DESIGN §2.5), command by command, as a user runs them.

    python bench/bench_view.py                    # 100k and 1M events
    python bench/bench_view.py 100k 1m 5m         # sizes; stores are cached in bench/out/
    python bench/bench_view.py PATH               # any store (it is copied first: the copy
                                                  # gets the appends)

Each figure is one `python -m inspector …` process (Python's start included), timed from
outside, with its peak RSS (/usr/bin/time). On a private copy of the store:
- floor: DuckDB alone reading the log into a table (bench_load.FLOOR), in its own process;
- cold: `held` with no `.inspector/` (reads the whole log, writes the view);
- warm `show`, `held`, `lineage` (the view, nothing appended), best of three;
- warm `beliefs`, `conflicts`, `scan` (every entry judged or checked), once each;
- `ingest` of one entry (the agent's write path: view, gate, append);
- tail catch-up: `held` after another process appended 1 and 1,000 lines;
- `audit --verify`.
The package's bytecode is compiled first, as `pip install .` does: a checkout run with
PYTHONDONTWRITEBYTECODE set would otherwise compile about 30 modules in every command (30 ms).
Targets (issue 12): warm ≤ 10% of cold (show, held, lineage), ingest and catch-up ≤ 15%,
warm RSS ≤ 500 MB (every warm command), verify ≤ 4x the floor. Not a test: it prints, it
does not judge.
"""

from __future__ import annotations

import compileall
import json
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from bench_load import FLOOR, SIZES, store_for  # noqa: E402

TIME = "/usr/bin/time"


def run(*args: str) -> tuple[float, int]:
    """(seconds, peak RSS in MB) of one inspector command; it must succeed."""
    proc = subprocess.run([TIME, "-f", "BENCH %e %M", sys.executable, "-m", "inspector", *args],
                          capture_output=True, text=True)
    last = [line for line in proc.stderr.splitlines() if line.startswith("BENCH ")][-1]
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{args[0]} failed ({proc.returncode}): {proc.stderr[-800:]}")
    _, seconds, kb = last.split()
    return float(seconds), round(int(kb) / 1024)


def floor(log: Path) -> tuple[float, int]:
    code = ("import duckdb, sys; c = duckdb.connect(); c.execute(\"SET TimeZone = 'UTC'\"); "
            f"c.execute({FLOOR!r}, [sys.argv[1]])")
    proc = subprocess.run([TIME, "-f", "BENCH %e %M", sys.executable, "-c", code, str(log)],
                          capture_output=True, text=True, check=True)
    _, seconds, kb = proc.stderr.strip().splitlines()[-1].split()
    return float(seconds), round(int(kb) / 1024)


def some_id(root: Path) -> str:
    with open(root / "events.jsonl", "rb") as f:
        f.seek(0, 2)
        f.seek(max(0, f.tell() // 2))
        f.readline()
        return json.loads(f.readline())["memory_id"]


def append_lines(root: Path, n: int, keys: list[tuple] | None = None) -> None:
    """Another process (an agent's writer) appends n write events: to new keys (user:tI city),
    or a new entry to each of `keys` (entity, attribute, scope), as an agent writing what the
    store already holds a belief about."""
    from inspector.store.append import LogWriter, event_draft
    from inspector.store.logfile import store_paths
    from inspector.store.model import ENTRY_DEFAULTS
    if keys is None:
        ids = [f"TAIL-{n}-{i}" for i in range(n)]
        keys = [(f"user:t{i}", "city", "tenant:bench") for i in range(n)]
    else:
        ids = [f"TAIL-KEY-{uuid.uuid4().hex[:12]}" for _ in keys]
    drafts = [event_draft("write", memory_id, "agent:bench", after={
        **ENTRY_DEFAULTS, "id": memory_id, "entity": entity, "attribute": attribute,
        "value": f"v{i}", "kind": "observation", "source": "tool:bench",
        "observed_at": "2026-01-01T00:00:00Z", "scope": scope, "status": "active"})
        for i, (memory_id, (entity, attribute, scope)) in enumerate(zip(ids, keys))]
    with LogWriter(store_paths(root)) as writer:
        writer.append(drafts)


def measure(source: Path, label: str) -> dict:
    work = Path(tempfile.mkdtemp(prefix="bench-view-", dir=source.parent))
    root = work / "store"
    try:
        root.mkdir(mode=0o700)
        shutil.copyfile(source / "events.jsonl", root / "events.jsonl")
        (root / "events.jsonl").chmod(0o600)
        log = root / "events.jsonl"
        some = some_id(root)
        lineage_id = "ROOT-10K" if "ROOT-10K" in log.read_bytes()[:1 << 20].decode("utf-8", "replace") \
            else some
        row = {"size": label, "log_mb": round(log.stat().st_size / 2 ** 20)}
        row["floor"] = floor(log)
        row["cold held"] = run("held", str(root), "--json")
        for name, args in (("warm show", ("show", str(root), some, "--json")),
                           ("warm held", ("held", str(root), "--json")),
                           ("warm lineage", ("lineage", str(root), lineage_id, "--json"))):
            row[name] = min((run(*args) for _ in range(3)), key=lambda r: r[0])
        # The commands that judge or check every entry: once each (seconds apiece).
        for name in ("beliefs", "conflicts", "scan"):
            row[f"warm {name}"] = run(name, str(root), "--json")
        one = work / "one.jsonl"
        one.write_text(json.dumps({
            "id": "BENCH-ONE", "entity": "user:bench", "attribute": "home_city", "value": "Lyon",
            "kind": "observation", "source": "user:bench", "authority": 2,
            "observed_at": "2026-11-30T00:00:00Z", "scope": "tenant:bench"}) + "\n")
        row["ingest 1"] = run("ingest", str(root), str(one), "--actor", "agent:bench")
        run("held", str(root), "--json")
        for n in (1, 1000):
            append_lines(root, n)
            row[f"catch-up {n}"] = run("held", str(root), "--json")
        row["audit --verify"] = run("audit", str(root), "--verify", "--json")
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(row: dict) -> None:
    cold = row["cold held"][0]
    fl = row["floor"][0]
    print(f"\n## {row['size']} ({row['log_mb']} MB log)")
    print("| step | seconds | peak RSS MB | vs cold | vs floor |")
    print("|---|---|---|---|---|")
    for name, value in row.items():
        if isinstance(value, tuple):
            seconds, mb = value
            print(f"| {name} | {seconds:.2f} | {mb} | {seconds / cold:.0%} | {seconds / fl:.1f}x |")


def main(args: list[str]) -> None:
    compileall.compile_dir(HERE.parent / "inspector", quiet=1)
    for arg in args or ["100k", "1m"]:
        if arg.lower() in SIZES:
            source, label = store_for(arg.lower()), arg.lower()
        else:
            source, label = Path(arg), Path(arg).name
        row = measure(source, label)
        report(row)
        print(json.dumps(row))


if __name__ == "__main__":
    main(sys.argv[1:])
