"""All or nothing: an action's events are applied whole or not at all.

Each event of a batch of two or more events carries `batch_size` in its envelope (inside the
hash chain). A crash, a kill or a full disk in the middle of writing a batch can leave only
its first events at the end of the log: readers set such an unfinished trailing batch aside
exactly like a torn last line — it is not loaded, and the next append moves its bytes to
`torn/<offset>` before writing. Events without `batch_size` count as whole, so logs written
before it stay valid.
"""

from __future__ import annotations

from dataclasses import replace
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
