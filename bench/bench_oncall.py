"""Benchmark: the on-call commands of issue 14 — `diff`, the Overview, `report` (not a test).

    python bench/bench_oncall.py                  # 1M events (cached in bench/out/)
    python bench/bench_oncall.py 1m 5m            # sizes
    python bench/bench_oncall.py PATH             # any store (read only; reports go to a temp dir)

The store's view is made warm first (`held --json`). Then:
- in one process, on the warm view: one store-wide belief table (beliefs.materialize, what
  `beliefs` builds), and diff.changes over the last hour and the last day before the newest
  event (the SQL diff of DESIGN §5a; the target is ≤ 2x the belief table);
- the Overview's numbers (Session.overview, as the screen's worker reads them): first read,
  and a second one (the event counts are incremental);
- as a user runs them, each one `python -m inspector …` process timed from outside with its
  peak RSS: `diff --json` over the hour and the day, `report` as HTML and as Markdown over the
  day (written to a temporary directory with --out, so the store is not touched).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from bench_load import SIZES, store_for  # noqa: E402
from bench_view import run  # noqa: E402


def timed(fn):
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def in_process(root: Path) -> tuple[dict, str, str, str]:
    from inspector.store import beliefs, diff
    from inspector.store.model import format_time
    from inspector.tui.session import Session
    row: dict = {}
    session = Session(root)
    row["open"], _ = timed(session.open)
    store = session.store
    newest = store.con.execute('SELECT max("at") FROM all_versions').fetchone()[0]
    hour, day = newest - timedelta(hours=1), newest - timedelta(days=1)
    with session.reader() as cur:
        row["belief table"], count = timed(lambda: beliefs.materialize(cur, session.spec))
        row["belief rows"] = count
        for label, since in (("hour", hour), ("day", day)):
            row[f"diff {label} (SQL)"], changes = timed(lambda: diff.changes(cur, since, newest))
            row[f"diff {label} changes"] = len(changes)
    row["overview first"], _ = timed(session.overview)
    row["overview again"], _ = timed(session.overview)
    store.close()
    return row, format_time(hour), format_time(day), format_time(newest)


def measure(root: Path) -> dict:
    run("held", str(root), "--json")                     # the view, written when missing
    row, hour, day, newest = in_process(root)
    with tempfile.TemporaryDirectory(prefix="bench-oncall-") as out:
        for label, since in (("hour", hour), ("day", day)):
            row[f"diff {label} CLI"] = run("diff", str(root), "--from", since, "--to", newest,
                                           "--json")
        for fmt in ("html", "md"):
            target = Path(out) / f"report.{fmt}"
            row[f"report {fmt} (day) CLI"] = run("report", str(root), "--since", day,
                                                 "--until", newest, "--format", fmt,
                                                 "--out", str(target))
            row[f"report {fmt} KB"] = round(target.stat().st_size / 1024)
    return row


def report(label: str, row: dict) -> None:
    print(f"\n## {label}")
    print("| step | seconds | peak RSS MB |")
    print("|---|---|---|")
    for name, value in row.items():
        if isinstance(value, tuple):
            print(f"| {name} | {value[0]:.2f} | {value[1]} |")
        elif isinstance(value, float):
            print(f"| {name} | {value:.2f} | |")
        else:
            print(f"| {name} | {value} | |")
    table = row["belief table"]
    for label in ("hour", "day"):
        print(f"diff over the {label} (SQL): {row[f'diff {label} (SQL)'] / table:.2f}x the belief table")


def main(args: list[str]) -> None:
    for arg in args or ["1m"]:
        root = store_for(arg.lower()) if arg.lower() in SIZES else Path(arg)
        row = measure(root)
        report(arg, row)
        print(json.dumps(row))


if __name__ == "__main__":
    main(sys.argv[1:])
