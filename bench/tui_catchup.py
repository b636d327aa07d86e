"""The TUI's view after another process appends (not a test): what the live path costs.

    python bench/tui_catchup.py 1m 5m          # synthetic stores (cached in bench/out/), copied first
    python bench/tui_catchup.py PATH           # any store (copied first: the copy gets the appends)

In one process, as the app does it without the UI: open the store (the persistent view), build
the belief view and every screen's rows (the launch), then for 1, 10 and 100 appended events:
`Store.refresh` (the new lines) and `Session.take_appended` (the keys they can change judged
again, beliefs.patch, then the screens' rows). A full `rebuild_view` is the comparison.
"""

from __future__ import annotations

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


def measure(root: Path) -> None:
    from inspector.tui.session import Session
    started = time.perf_counter()
    session = Session(root)
    session.open()
    print(f"open (view attached, tail read): {time.perf_counter() - started:.2f} s")
    started = time.perf_counter()
    rows = session.rebuild_view()
    print(f"belief view and screens, full: {time.perf_counter() - started:.2f} s ({rows} rows), "
          f"peak RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")
    for n in (1, 10, 100):
        append_lines(root, n)
        started = time.perf_counter()
        session.store.refresh()
        taken = time.perf_counter()
        session.take_appended()
        done = time.perf_counter()
        print(f"{n:>3} appended: refresh {taken - started:.3f} s, patch and screens "
              f"{done - taken:.3f} s")
    print(f"peak RSS, the catch-ups included {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")


def main(args: list[str]) -> None:
    for arg in args or ["1m"]:
        source = store_for(arg.lower()) if arg.lower() in SIZES else Path(arg)
        work = Path(tempfile.mkdtemp(prefix="bench-tui-", dir=source.parent))
        try:
            root = work / "store"
            root.mkdir(mode=0o700)
            shutil.copyfile(source / "events.jsonl", root / "events.jsonl")
            (root / "events.jsonl").chmod(0o600)
            subprocess.run([sys.executable, "-m", "inspector", "held", str(root), "--json"],
                           check=True, capture_output=True)           # writes the view
            print(f"## {arg}")
            measure(root)
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
