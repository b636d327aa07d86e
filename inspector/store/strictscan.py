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
(about 7-9 µs); after one such line, the scan tries jiter first. Any other line is read by
`jsonsafe.loads`, which decides; faults it does not call unstrict (not JSON, not UTF-8) are
the fast read's, which sees them too.
Large ranges are scanned by child processes, one a core over a piece each (`python -m
inspector.store.strictscan FD START END`, handed the log's descriptor, so they read the same
file), beside DuckDB's work: the cold load waits for them only at the end. At a million events
this tool wrote, that is 2.1 s more than the 5.4 s the load takes without it (DuckDB 2.0; with
1.3 it was 2.2 s more than 9.3 s). On two cores the scan and DuckDB share the same CPU, so
the scan's cost is its CPU time (about 3.4 µs a line), not hidden behind the reader.
"""

from __future__ import annotations

import os
import subprocess
import sys

import jiter

from . import jsonsafe
from .contract import extras_problem
from .envelope import mistyped
from .logfile import line_start_after

BLOCK = 1 << 24
# Below this many bytes the scan runs in the loading process (about 20 ms): a child process
# costs more than that to start.
INLINE_BYTES = 4 << 20


_NO = jsonsafe.UNREAD       # no parse of the line vouched for it


def _no_repeated_key(raw: bytes):
    """The parsed line when jiter reads it with no repeated key in any object, else _NO."""
    try:
        return jiter.from_json(raw, catch_duplicate_keys=True, cache_mode=False)
    except ValueError:
        return _NO


def _strictly_read(raw: bytes) -> tuple[bool, object]:
    """(refused by the strict reading, the parsed line or _NO)."""
    try:
        return False, jsonsafe.loads(raw)
    except jsonsafe.NotStrict:
        return True, _NO
    except (ValueError, RecursionError):
        return False, _NO           # not JSON: the fast read refuses it in its own words


def judge_line(text: str | None) -> tuple[str | None, str | None, list[str]]:
    """The strict reading of one line, as audit reads it: (what it finds wrong with the line: a
    byte-order mark, a duplicated key, a lone surrogate escape; what contract.extras_problem
    finds wrong with its state's fields the loader's SQL does not judge; the envelope fields
    of a JSON type the SQL's text columns hide: envelope.mistyped)."""
    if not text or not text.strip():
        return None, None, []
    try:
        event = jsonsafe.loads(text)
    except jsonsafe.NotStrict as exc:
        return str(exc), None, []
    except ValueError:
        return None, None, []      # not JSON at all: the SQL says so in its own words
    if not isinstance(event, dict):
        return None, None, []      # not an object: the SQL says so
    return None, extras_problem(event), mistyped(event)


def refused(raw: bytes, canonical_first: bool = True) -> bool:
    """Must the exact read take this line? True when the strict reading refuses it (a
    duplicated key, a byte-order mark, a lone surrogate escape), when its envelope holds a
    field of a JSON type the fast read's text columns hide (`"batch": 5`: envelope.mistyped),
    or when its state holds a field the fast read does not judge that breaks the entry
    contract (an unknown extra nested too deep, or holding a non-finite or too large number:
    contract.extras_problem). False for a line that is not JSON at all: the fast read refuses
    it."""
    return _verdict(raw, canonical_first)[0]


def _verdict(raw: bytes, canonical_first: bool) -> tuple[bool, bool]:
    """(`refused`'s answer, whether orjson vouched for the line as canonical)."""
    event = jsonsafe.orjson_reading(raw) if canonical_first else _NO
    canonical = event is not _NO
    if not canonical:
        event = _no_repeated_key(raw)
    if event is _NO:
        bad, event = _strictly_read(raw)
        if bad:
            return True, False
    if event is _NO or not isinstance(event, dict):
        return False, canonical
    return bool(mistyped(event)) or extras_problem(event) is not None, canonical


def first_refused(fd: int, start: int, end: int) -> int | None:
    """The offset of the first line between two offsets (complete lines) of the file open as
    `fd` that `refused` refuses, else None."""
    offset, rest = start, b""
    while offset + len(rest) < end:
        block = os.pread(fd, min(BLOCK, end - offset - len(rest)), offset + len(rest))
        if not block:
            break
        data = rest + block
        cut = data.rfind(b"\n") + 1
        rest = data[cut:]
        canonical_first = True          # after a line another writer spelt: jiter first
        for line in data[:cut].split(b"\n")[:-1]:
            exact, canonical_first = _verdict(line, canonical_first)
            if exact:
                return offset
            offset += len(line) + 1
    if rest and refused(rest):
        return offset
    return None


def _line_cuts(fd: int, start: int, end: int, parts: int) -> list[int]:
    """Offsets that split start..end into about `parts` pieces, each cut just after a b"\\n"."""
    cuts = [start]
    for k in range(1, parts):
        cuts.append(line_start_after(fd, max(start + (end - start) * k // parts, cuts[-1]), end))
    cuts.append(end)
    return sorted(set(cuts))


class Scan:
    """The strict scan of bytes start..end of the log: for a large range, in child processes
    (one a core, at most PARTS) over pieces of it, which `result()` waits for; else done at
    once."""

    PARTS = 4

    def __init__(self, path: os.PathLike, start: int, end: int):
        self._found: int | None = None
        self._procs: list[tuple[subprocess.Popen, int, int]] = []
        # Read through a link as the loader does (writers are the ones that refuse links).
        self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        if end - start < INLINE_BYTES:
            self._scan_here(start, end)
            return
        cuts = _line_cuts(self._fd, start, end, min(self.PARTS, os.cpu_count() or 1))
        try:
            for lo, hi in zip(cuts, cuts[1:]):
                self._procs.append((subprocess.Popen(
                    [sys.executable, "-m", __name__, str(self._fd), str(lo), str(hi)],
                    pass_fds=(self._fd,), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL), lo, hi))
        except OSError:             # no process to spare: scan here, now
            for proc, _, _ in self._procs:
                proc.kill()
                proc.wait()
            self._procs = []
            self._scan_here(start, end)

    def _scan_here(self, start: int, end: int) -> None:
        try:
            self._found = first_refused(self._fd, start, end)
        finally:
            os.close(self._fd)

    def result(self) -> int | None:
        """The offset of the first refused line, or None. A piece whose child did not finish
        (killed, out of memory) or answered other than an offset is scanned here instead."""
        procs, self._procs = self._procs, []
        if not procs:
            return self._found
        try:
            found = []
            for proc, lo, hi in procs:
                out, _ = proc.communicate()
                text = out.decode("ascii", "replace").strip()
                if proc.returncode == 0 and (not text or text.isdigit()):
                    offset = int(text) if text else None
                else:
                    offset = first_refused(self._fd, lo, hi)
                if offset is not None:
                    found.append(offset)
            self._found = min(found, default=None)
            return self._found
        finally:
            os.close(self._fd)

    def stop(self) -> None:
        """End a scan whose answer is no longer needed (the load failed on its own)."""
        procs, self._procs = self._procs, []
        for proc, _, _ in procs:
            proc.kill()
            proc.wait()
        if procs:
            os.close(self._fd)


def main(argv: list[str]) -> int:
    fd, start, end = (int(arg) for arg in argv)
    found = first_refused(fd, start, end)
    sys.stdout.write("" if found is None else f"{found}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
