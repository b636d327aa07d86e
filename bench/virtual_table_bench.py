"""Benchmark: the VirtualTable's own work over 5,000,000 rows at 180×45 (not a test).

    python bench/virtual_table_bench.py            # computed rows (the widget alone)
    python bench/virtual_table_bench.py --duckdb   # rows paged from a 5M-row DuckDB table

The pilot's own ~50 ms per key press would drown the numbers, so each step
calls the action and then does, synchronously, what the screen's update timer
would do next: reflow if it scrolled, render the dirty lines through the
compositor and hand the update to the (headless) driver. Times:

  first paint   table mounted → first row line rendered (count + first page
                fetched in the worker, then painted); one fresh app per run
  cursor down   action_cursor_down + repaint, split below into the moves
                within the view (two lines repainted) and those at the bottom
                edge, where each step scrolls and the whole table repaints
  page down     action_page_down + repaint (whole table; rows not yet fetched
                are painted as placeholders — the fetch is in the background)
  end           home (untimed), then action_cursor_last + repaint
  end → rows    end with an empty page cache until the last rows are painted,
                including the worker's fetch (wall clock, event loop running)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.app import App, ComposeResult  # noqa: E402

from inspector.tui.widgets.virtual_table import Column, VirtualTable  # noqa: E402

ROWS = 5_000_000
SIZE = (180, 45)
REPEAT = 200
COLUMNS = [Column("id", "ID", width=12), Column("entity", "ENTITY", width=10),
           Column("attribute", "ATTRIBUTE", width=18), Column("value", "VALUE"),
           Column("at", "AT", width=20)]


class ComputedRows:
    """Rows computed from their position: the widget's cost without a query."""

    def count(self) -> int:
        return ROWS

    def fetch(self, first: int, last: int) -> list[dict[str, Any]]:
        return [{"id": f"M{i:09d}", "entity": "svc", "attribute": f"key_{i % 97}",
                 "value": f"value {i} with some text \x1b[2J", "at": "2025-03-01T04:06:55Z"}
                for i in range(first, last + 1)]


class DuckRows:
    """Rows paged from a position-numbered DuckDB table with `pos BETWEEN`."""

    def __init__(self) -> None:
        import duckdb

        self.db = duckdb.connect()
        self.db.execute(
            "CREATE TABLE rows AS SELECT range AS pos, printf('M%09d', range) AS id, 'svc' AS entity,"
            " 'key_' || (range % 97) AS attribute, 'value ' || range || ' ' || md5(range::VARCHAR) AS value,"
            " TIMESTAMP '2025-03-01' + to_seconds(range) AS \"at\" FROM range(?)", [ROWS])
        self._local = threading.local()

    def _cursor(self) -> Any:
        if not hasattr(self._local, "cursor"):
            self._local.cursor = self.db.cursor()
        return self._local.cursor

    def count(self) -> int:
        return self._cursor().execute("SELECT count(*) FROM rows").fetchone()[0]

    def fetch(self, first: int, last: int) -> list[dict[str, Any]]:
        cursor = self._cursor().execute(
            "SELECT id, entity, attribute, value, \"at\" FROM rows WHERE pos BETWEEN ? AND ? ORDER BY pos",
            [first, last])
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


class TimedTable(VirtualTable):
    mounted_at = first_row_at = 0.0

    def on_mount(self) -> None:
        self.mounted_at = time.perf_counter()

    def _row_strip(self, index, row, width):  # type: ignore[no-untyped-def]
        if not self.first_row_at:
            self.first_row_at = time.perf_counter()
        return super()._row_strip(index, row, width)


class BenchApp(App[None]):
    def __init__(self, source: Any) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        yield TimedTable(COLUMNS, key="id")

    def on_mount(self) -> None:
        self.query_one(TimedTable).load(self.source)


def paint(app: App[Any], table: VirtualTable, scrolled: bool) -> None:
    """What the screen's update timer does after the table refreshes, run now.

    A ScrollView that scrolls only repaints itself and moves its scrollbar
    (no layout), so the dirty widgets are the table and, if it scrolled, its
    scrollbar; the compositor renders their dirty regions and the headless
    driver receives the update."""
    screen = app.screen
    screen._dirty_widgets.add(table)
    if scrolled:
        screen._dirty_widgets.add(table.vertical_scrollbar)
    screen._on_timer_update()


def timed(app: App[Any], table: VirtualTable, action: Callable[[], None]) -> float:
    top = table.scroll_offset.y
    start = time.perf_counter()
    action()
    paint(app, table, table.scroll_offset.y != top)
    return time.perf_counter() - start


async def wait_for(pilot: Any, condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("the table never showed its rows: does the source raise? (see notifications)")
        await pilot.pause(0.001)


async def first_paint(source: Any) -> float:
    app = BenchApp(source)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TimedTable)
        await wait_for(pilot, lambda: table.first_row_at > 0)
        return table.first_row_at - table.mounted_at


async def steps(source: Any) -> dict[str, list[float]]:
    app = BenchApp(source)
    results: dict[str, list[float]] = {"cursor down": [], "  in view": [], "  scrolls": [],
                                       "page down": [], "end": [], "end → rows": []}
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TimedTable)
        await wait_for(pilot, lambda: table.row_at(0) is not None)
        await pilot.pause()
        for _ in range(REPEAT):
            top = table.scroll_offset.y
            results["cursor down"].append(timed(app, table, table.action_cursor_down))
            results["  scrolls" if table.scroll_offset.y != top else "  in view"].append(results["cursor down"][-1])
            await pilot.pause()
        for _ in range(REPEAT):
            results["page down"].append(timed(app, table, table.action_page_down))
            await pilot.pause()
        for _ in range(REPEAT):
            table.action_cursor_first()
            paint(app, table, True)
            await pilot.pause()
            results["end"].append(timed(app, table, table.action_cursor_last))
            await pilot.pause()
        for _ in range(REPEAT // 4):
            table.action_cursor_first()
            table._pages.clear()  # force a fetch of the last page
            await pilot.pause()
            start = time.perf_counter()
            table.action_cursor_last()
            await wait_for(pilot, lambda: table.row_at(ROWS - 1) is not None)
            paint(app, table, False)
            results["end → rows"].append(time.perf_counter() - start)
    return results


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duckdb", action="store_true", help="page from a 5M-row DuckDB table")
    args = parser.parse_args()
    if args.duckdb:
        start = time.perf_counter()
        source: Any = DuckRows()
        print(f"DuckDB table of {ROWS:,} rows built in {time.perf_counter() - start:.1f} s")
    else:
        source = ComputedRows()
    paints = [asyncio.run(first_paint(source)) for _ in range(5)]
    results = {"first paint": paints, **asyncio.run(steps(source))}
    print(f"VirtualTable, {ROWS:,} {'DuckDB' if args.duckdb else 'computed'} rows, {SIZE[0]}×{SIZE[1]}")
    print(f"{'step':<14}{'n':>5}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
    for name, values in results.items():
        ms = [v * 1000 for v in values]
        print(f"{name:<14}{len(ms):>5}{statistics.median(ms):>10.2f}{percentile(ms, 0.95):>10.2f}{max(ms):>10.2f}")


if __name__ == "__main__":
    main()
