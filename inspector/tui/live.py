"""What the header says about the log on disk compared with what was loaded: lines appended (the
normal case), or a log that went back or was replaced under a seq the app had seen. Read before
the store loads the change, in a worker thread."""

from __future__ import annotations

import json
import os
import re
from typing import Callable


def log_change(log: os.PathLike, seen_seq: int, seen_hash: str | None, offset: int,
               inode: int | None, hash_at: Callable[[int], str | None]) -> str | None:
    """None when the log only grew; otherwise "rolled back …", "truncated …" or "replaced …".
    `hash_at(seq)` is the loaded hash at a seq (read before the store reloads)."""
    try:
        st = os.stat(log)
    except OSError:
        return "missing: the log file is gone"
    if seen_seq == 0 or (st.st_ino == inode and st.st_size >= offset):
        return None
    count, torn, at_seen, last = _scan(log, seen_seq)
    if count >= seen_seq:
        if at_seen == seen_hash:
            return None                   # rewritten in place with the same chain (an erasure)
        return f"replaced: seq {seen_seq} is not the event loaded (head was {seen_seq})"
    if count and last != hash_at(count):
        return f"replaced: seq {count} is not the event loaded (had seen {seen_seq})"
    if torn:
        return f"truncated to seq {count} mid-line (had seen {seen_seq})"
    return rolled_back(count, seen_seq)


def rolled_back(count: int, seen_seq: int) -> str:
    return f"rolled back to seq {count} (had seen {seen_seq})"


_SHORTER = re.compile(r"^(?:rolled back|truncated) to seq (\d+)")


def shorter_at(problem: str | None) -> int | None:
    """The seq a "rolled back" or "truncated" problem (log_change's) says the log ends at."""
    found = _SHORTER.match(problem or "")
    return int(found.group(1)) if found else None


def _scan(log: os.PathLike, seen_seq: int) -> tuple[int, bool, str | None, str | None]:
    """(complete lines, a torn last line, the hash on line `seen_seq`, the last line's hash)."""
    count, at_seen, last_line, torn = 0, None, b"", False
    with open(log, "rb") as f:
        for line in f:
            if not line.endswith(b"\n"):
                torn = bool(line.strip())
                break
            count += 1
            last_line = line
            if count == seen_seq:
                at_seen = _hash(line)
                break
    return count, torn, at_seen, _hash(last_line) if count else None


def _hash(line: bytes) -> str | None:
    try:
        return json.loads(line).get("hash")
    except (ValueError, AttributeError):
        return "(unreadable)"


def log_identity(log: os.PathLike) -> tuple[int, int, int] | None:
    """(inode, size, mtime in ns) of the log: whatever a write to it changes (None if unreadable)."""
    try:
        st = os.stat(log)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns
