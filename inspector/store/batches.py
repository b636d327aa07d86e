"""All or nothing: an action's events are applied whole or not at all.

Each event of a batch of two or more events carries `batch_size` in its envelope (inside the
hash chain). A crash, a kill or a full disk in the middle of writing a batch can leave only
its first events at the end of the log: readers set such an unfinished trailing batch aside
exactly like a torn last line — it is not loaded, and the next append moves its bytes to
`torn/<offset>` before writing. Events without `batch_size` count as whole, so logs written
before it stay valid.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from . import jsonsafe
from .logfile import Tail, read_tail

BLOCK = 1 << 20


def whole_tail(path: Path, start: int = 0) -> Tail:
    """read_tail, with an unfinished trailing batch counted as torn bytes."""
    tail = read_tail(path, start)
    cut = unfinished_batch_start(path, start, tail.end)
    if cut == tail.end:
        return tail
    with open(path, "rb") as f:
        f.seek(cut)
        aside = f.read(tail.end - cut)
    return replace(tail, end=cut, torn=aside + tail.torn)


def unfinished_batch_start(path: Path, start: int, end: int) -> int:
    """Where an unfinished trailing batch begins (its first event's offset), or `end` when
    the complete lines end with a whole batch."""
    lines = _last_lines(path, start, end, 1)
    if not lines:
        return end
    size, batch = _batch_of(lines[0][1])
    if not batch or not size or size < 2:
        return end
    found = _last_lines(path, start, end, size)
    members = []
    for offset, raw in found:                # newest first
        if _batch_of(raw)[1] != batch:
            break
        members.append(offset)
    return end if len(members) >= size else members[-1]


def _batch_of(raw: bytes) -> tuple[int | None, str | None]:
    if b'"batch_size"' not in raw:
        return None, None
    try:
        event = jsonsafe.loads(raw)
    except ValueError:
        return None, None
    size = event.get("batch_size")
    return (size if isinstance(size, int) and not isinstance(size, bool) else None,
            event.get("batch") if isinstance(event.get("batch"), str) else None)


def _last_lines(path: Path, start: int, end: int, count: int) -> list[tuple[int, bytes]]:
    """Up to `count` complete lines ending at `end`, newest first, with their offsets."""
    out: list[tuple[int, bytes]] = []
    with open(path, "rb") as f:
        pos, carry = end, []              # the pieces of a line not yet whole, newest first
        while pos > start and len(out) < count:
            step = min(BLOCK, pos - start)
            pos -= step
            f.seek(pos)
            data = f.read(step)
            if b"\n" not in data:        # inside one long line: keep it, copy it once
                carry.append(data)
                continue
            chunk = data + b"".join(reversed(carry))
            parts = chunk.split(b"\n")
            carry = [parts[0]]
            # parts[-1] is b"" (the chunk ends at a newline or at the previous carry's start)
            offset = pos + len(parts[0]) + 1
            body = parts[1:]
            offsets = []
            for part in body:
                offsets.append(offset)
                offset += len(part) + 1
            for off, line in reversed(list(zip(offsets, body))):
                if line:
                    out.append((off, line))
                    if len(out) == count:
                        break
        line = b"".join(reversed(carry))
        if len(out) < count and pos <= start and line:
            out.append((start, line))
    return out[:count]


@dataclass(frozen=True)
class Run:
    """Consecutive lines of one batch of two or more events (queries/load.sql
    staged_batch_runs): its first and last line, the first line's seq, and how many it holds
    of the `size` its first line gives."""

    first_line: int
    last_line: int
    first_seq: int
    batch: str
    size: int
    n: int


def cut_short(batch: str, n: int, size: int) -> str:
    """A batch cut short in the middle of the log, in the words of loaders and audit alike."""
    return (f"batch {batch} has {n} of its {size} events, and lines follow it: it was cut "
            "short, and an action is applied whole or not at all")


def join_runs(open_run: Run | None, runs: list[Run], first: int, last: int,
              ends: bool) -> tuple[Run | None, list[Run]]:
    """The runs of lines `first`..`last`, after `open_run` (a run the lines before them left
    short, which may go on in them): (the run left short at `last`, to go on in the lines to
    come, or None; the runs cut short, in the log's order). `ends`: no line follows `last`
    (then a run short at `last` is cut too: the reader set aside only the last batch of the
    log, so lines follow it). `runs` holds every short run of the lines and every run that
    touches `first` or `last`."""
    runs = list(runs)
    cut: list[Run] = []
    if open_run is not None:
        if runs and runs[0].first_line == first and runs[0].batch == open_run.batch \
                and open_run.last_line == first - 1:
            runs[0] = replace(open_run, last_line=runs[0].last_line, n=open_run.n + runs[0].n)
        else:
            cut.append(open_run)
    carry = None
    for run in runs:
        if run.n >= run.size:
            continue
        if run.last_line == last and not ends:
            carry = run
        else:
            cut.append(run)
    return carry, cut
