"""The TUI's view after another process appends (not a test): what the live path costs.

    python bench/tui_catchup.py 1m 5m          # synthetic stores (cached in bench/out/), copied first
    python bench/tui_catchup.py PATH           # any store (copied first: the copy gets the appends)
    python bench/tui_catchup.py --statements 12 PATH   # and each catch-up's 12 slowest statements

In one process, as the app does it without the UI: open the store (the persistent view), build
the belief view and every screen's rows (the launch), then for 1, 10, 100 and 1 more appended
events: `Store.refresh` (the new lines) and `Session.take_appended` (the keys they can change
judged again, beliefs.patch, then the screens' rows). These append to keys the store does not
hold; then 1, 10 and 1 more appended to keys it holds (sampled from its versions), whose
entries the patch reads again; last, 1 appended to a new key that sorts before every other, so
that every row of the belief view and the screens moves one place (the most a catch-up of one
event moves). The first catch-up after the launch judges more than its appends: what fell due
while the view was built (`changed_between`).
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from bench_load import SIZES, store_for  # noqa: E402
from bench_view import append_lines  # noqa: E402


# An entity before every other in the belief view's order (entity, attribute, scope) of the
# bench's stores ("!" sorts before digits and letters); the bench prints the row it got.
FIRST = "!bench:first"


class Timed:
    """A cursor whose statements are timed into `spent` (name from queries/, else its start)."""

    def __init__(self, cursor, spent: list, names: dict) -> None:
        self._cursor, self._spent, self._names = cursor, spent, names

    def execute(self, query, *args, **kwargs):
        started = time.perf_counter()
        result = self._cursor.execute(query, *args, **kwargs)
        name = self._names.get(query) or " ".join(str(query).split())[:60]
        self._spent.append((name, time.perf_counter() - started))
        return self if result is self._cursor else result

    def __getattr__(self, name):
        return getattr(self._cursor, name)


def measure(root: Path, statements: int = 0) -> None:
    from inspector.store.queries import statements as texts
    from inspector.tui.session import Session
    spent: list[tuple[str, float]] = []
    if statements:
        names = {text: name for name, text in texts().items()}
        plain = Session.reader

        @contextlib.contextmanager
        def timed_reader(self):
            with plain(self) as cursor:
                yield Timed(cursor, spent, names)
        Session.reader = timed_reader
    started = time.perf_counter()
    session = Session(root)
    session.open()
    print(f"open (view attached, tail read): {time.perf_counter() - started:.2f} s")
    started = time.perf_counter()
    rows = session.rebuild_view()
    print(f"belief view and screens, full: {time.perf_counter() - started:.2f} s ({rows} rows), "
          f"peak RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")
    keys = session.store.con.execute(
        "SELECT entity, attribute, scope FROM base.versions WHERE entity IS NOT NULL "
        "USING SAMPLE 12 ROWS (reservoir, 7)").fetchall()
    steps = [(lambda n=n: append_lines(root, n), f"{label} appended")
             for n, label in ((1, "  1"), (10, " 10"), (100, "100"), (1, "  1 more"))]
    steps += [(lambda n=n, at=at: append_lines(root, n, keys[at:at + n]), label)
              for n, at, label in ((1, 0, "  1 to a key it holds"), (10, 1, " 10 to keys it holds"),
                                   (1, 11, "  1 more to a key it holds"))]
    steps += [(lambda: append_lines(root, 1, [(FIRST, "city", "tenant:bench")]),
               "  1 to a new key sorting first")]
    for append, label in steps:
        append()
        started = time.perf_counter()
        session.store.refresh()
        taken = time.perf_counter()
        spent.clear()
        session.take_appended()
        done = time.perf_counter()
        print(f"{label}: refresh {taken - started:.3f} s, patch and screens "
              f"{done - taken:.3f} s, in all {done - started:.3f} s")
        for name, seconds in sorted(spent, key=lambda pair: -pair[1])[:statements]:
            print(f"      {seconds:7.3f} s  {name}")
        if "first" in label:
            with session.reader() as cursor:
                pos, rows = cursor.execute("SELECT min(pos) FILTER (WHERE entity = $e), count(*) "
                                           "FROM beliefs", {"e": FIRST}).fetchone()
            print(f"      (its belief row is row {pos} of {rows})")
    print(f"peak RSS, the catch-ups included {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="*", default=["1m"], help="1m, 5m, ... or a store's path")
    parser.add_argument("--statements", type=int, default=0, metavar="N",
                        help="print each catch-up's N slowest statements")
    args = parser.parse_args(argv)
    for arg in args.stores:
        source = store_for(arg.lower()) if arg.lower() in SIZES else Path(arg)
        work = Path(tempfile.mkdtemp(prefix="bench-tui-", dir=source.parent))
        try:
            root = work / "store"
            root.mkdir(mode=0o700)
            shutil.copyfile(source / "events.jsonl", root / "events.jsonl")
            (root / "events.jsonl").chmod(0o600)
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "inspector", "held", str(root), "--json"],
                           check=True, capture_output=True)           # writes the view
            print(f"## {arg}\ncold `held` (writes the view): {time.perf_counter() - started:.1f} s")
            measure(root, args.statements)
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
