"""A process to be killed: appends events (acknowledging each batch after fsync) or erases
and dies at a chosen stage of the rewrite. Used by test_crash.py; not a test itself.

    crash_child.py append STORE BATCHES BATCH_SIZE [--slow]
    crash_child.py erase STORE STAGE
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inspector.store import append  # noqa: E402
from inspector.store.logfile import store_paths  # noqa: E402
from storegen import entry  # noqa: E402


def slow_write_all(fd: int, data: bytes) -> None:
    """Write in small pieces with pauses, so that a kill can land inside a line."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:97])
        view = view[written:]
        time.sleep(0.0002)


def appender(root: str, batches: int, size: int, slow: bool) -> None:
    if slow:
        append.write_all = slow_write_all
    paths = store_paths(root)
    for b in range(batches):
        drafts = [append.event_draft("write", f"P{os.getpid()}-{b}-{i}", "agent:crash",
                                     after=entry(f"P{os.getpid()}-{b}-{i}", attribute=f"a{b}-{i}",
                                                 value="x" * (i % 50)))
                  for i in range(size)]
        with append.LogWriter(paths) as writer:
            events = writer.append(drafts)
        print(f"ack {events[-1]['seq']}", flush=True)


def eraser(root: str, stage: str) -> None:
    from inspector.store.actions import Request
    from inspector.store.registry import apply, plan
    from inspector.store.load import Store

    def die(at: str) -> None:
        if at == stage:
            os._exit(9)
    from inspector.store import files
    files.crash_hook = die
    store = Store(root, warn=False)
    apply(store, plan(store, Request("erase", "DSR-1", "dana", subject="user:5")))


if __name__ == "__main__":
    if sys.argv[1] == "append":
        appender(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), "--slow" in sys.argv)
    else:
        eraser(sys.argv[2], sys.argv[3])
