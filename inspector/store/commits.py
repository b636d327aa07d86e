"""What this process has written to a store, so that a command stopped part-way (ctrl-c) can
say what is true — nothing, a batch, or an erasure and its certificate — and the commit
sections that a ctrl-c waits out, so that it never lands between writing and recording."""

from __future__ import annotations

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


@contextmanager
def uninterrupted():
    """Hold back SIGINT while the block writes and records a write; deliver it after. Only the
    main thread can swap the handler; elsewhere (a TUI worker) the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and callable(previous):
            previous(signal.SIGINT, None)       # Python's own handler: KeyboardInterrupt now
