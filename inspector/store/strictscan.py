"""The strict reading over a whole range of the log, beside a cold load's fast read.

DuckDB's JSON reader takes a line with a duplicated key without a word (it keeps the first of
the values, where Python keeps the last), while `audit --verify` and every read of appended
lines refuse it (DESIGN §7: loaders and audit never disagree about what a valid line is). So a
cold load also reads every line of the ranges it loads fast with the strict reading, and a line
it refuses sends that part of the log to the exact read, which names the line.

A line is vouched for when orjson writes back exactly its bytes from what it parsed: a parsed
object holds each key once, so bytes equal to that writing hold no duplicated key, no
byte-order mark and no lone surrogate (the tool's own lines, canonical JSON, always pass;
about 3.7 µs a line). A line written otherwise (spaces, escapes, another key order: a foreign
writer's) is vouched for when jiter, which checks every object for a repeated key, reads it
(about 6.7 µs); after one such line, the scan tries jiter first. Any other line is read by
`jsonsafe.loads`, which decides; faults it does not call unstrict (not JSON, not UTF-8) are
the fast read's, which sees them too.
Large ranges are scanned in a child process (`python -m inspector.store.strictscan FD START
END`, handed the log's descriptor, so it reads the same file) on the core DuckDB's read leaves
idle at times: the cold load waits for it only at the end.
"""

from __future__ import annotations

import os
import subprocess
import sys

import jiter
import orjson

from . import jsonsafe

BLOCK = 1 << 24
# Below this many bytes the scan runs in the loading process (about 20 ms): a child process
# costs more than that to start.
INLINE_BYTES = 4 << 20


def _canonical(raw: bytes) -> bool:
    try:
        return orjson.dumps(orjson.loads(raw)) == raw
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return False


def _no_repeated_key(raw: bytes) -> bool:
    try:
        jiter.from_json(raw, catch_duplicate_keys=True, cache_mode=False)
        return True
    except ValueError:
        return False


def _strictly_refused(raw: bytes) -> bool:
    try:
        jsonsafe.loads(raw)
    except jsonsafe.NotStrict:
        return True
    except (ValueError, RecursionError):
        return False                # not JSON: the fast read refuses it in its own words
    return False


def refused(raw: bytes, canonical_first: bool = True) -> bool:
    """Does the strict reading refuse this line (a duplicated key, a byte-order mark, a lone
    surrogate escape)? False for a line that is not JSON at all: the fast read refuses it."""
    if canonical_first and _canonical(raw):
        return False
    if _no_repeated_key(raw):
        return False
    return _strictly_refused(raw)


def first_refused(fd: int, start: int, end: int) -> int | None:
    """The offset of the first line between two offsets (complete lines) of the file open as
    `fd` that the strict reading refuses, else None."""
    offset, rest = start, b""
    while offset + len(rest) < end:
        block = os.pread(fd, min(BLOCK, end - offset - len(rest)), offset + len(rest))
        if not block:
            break
        data = rest + block
        cut = data.rfind(b"\n") + 1
        rest = data[cut:]
        canonical_first = True
        for line in data[:cut].split(b"\n")[:-1]:
            if canonical_first and _canonical(line):
                offset += len(line) + 1
                continue
            canonical_first = False     # a foreign writer's block: jiter first
            if line and refused(line, canonical_first=False):
                return offset
            offset += len(line) + 1
    if rest and refused(rest):
        return offset
    return None


class Scan:
    """The strict scan of bytes start..end of the log, in a child process for a large range
    (its `result()` waits for it), else done at once."""

    def __init__(self, path: os.PathLike, start: int, end: int):
        self._found: int | None = None
        self._proc: subprocess.Popen | None = None
        # Read through a link as the loader does (writers are the ones that refuse links).
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            if end - start < INLINE_BYTES:
                self._found = first_refused(fd, start, end)
                return
            self._args = (fd, start, end)
            try:
                self._proc = subprocess.Popen(
                    [sys.executable, "-m", __name__, str(fd), str(start), str(end)],
                    pass_fds=(fd,), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL)
            except OSError:         # no process to spare: scan here, now
                self._found = first_refused(fd, start, end)
        finally:
            if self._proc is None:
                os.close(fd)
            else:
                self._fd = fd       # kept in case the child fails and the scan runs here

    def result(self) -> int | None:
        """The offset of the first refused line, or None. A child that did not finish its
        scan (killed, out of memory) is replaced by the scan here."""
        proc, self._proc = self._proc, None
        if proc is None:
            return self._found
        try:
            out, _ = proc.communicate()
            if proc.returncode == 0:
                text = out.decode("ascii", "replace").strip()
                return int(text) if text else None
            return first_refused(*self._args)
        finally:
            os.close(self._fd)

    def stop(self) -> None:
        """End a scan whose answer is no longer needed (the load failed on its own)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.wait()
            os.close(self._fd)


def main(argv: list[str]) -> int:
    fd, start, end = (int(arg) for arg in argv)
    found = first_refused(fd, start, end)
    sys.stdout.write("" if found is None else f"{found}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
