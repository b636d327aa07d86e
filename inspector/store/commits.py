"""What this process has written to a store, so that a command stopped part-way (ctrl-c) can
say what is true — nothing, a batch, or an erasure and its certificate — and the commit
sections that a ctrl-c waits out, so that it never lands between writing and recording."""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Written:
    root: Path
    kind: str               # "batch" (appended events) or "erasure"
    ident: str              # the batch id, or the certificate id
    events: int
    finished: bool = True   # False: an erasure in the log that the next writer finishes


WRITTEN: list[Written] = []


def record(written: Written) -> None:
    WRITTEN.append(written)


# Held back while a block writes: ctrl-c, and what a service manager or a closed terminal sends
# (`ingest` of a 60,000-line feed stopped by SIGTERM left 7,371 of its events in the log).
HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextmanager
def uninterrupted():
    """Hold back SIGINT, SIGTERM and SIGHUP while the block writes and records a write; deliver
    them after, as they would have been (ctrl-c: KeyboardInterrupt; SIGTERM or SIGHUP with no
    handler: the process ends, its write whole). Only the main thread can swap the handlers;
    elsewhere (a TUI worker) the block runs as it is. SIGKILL cannot be held back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {signum: signal.signal(signum, lambda signum, frame: caught.append(signum))
                for signum in HELD}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(caught):
            handler = previous[signum]
            if callable(handler):
                handler(signum, None)           # Python's own SIGINT handler: KeyboardInterrupt
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), signum)    # what the signal would have done: end here
