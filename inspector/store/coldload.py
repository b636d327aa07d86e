"""A cold load: the whole log read into a Store's tables when no persistent view is current.

The log is read a range of lines at a time, each range by DuckDB's parallel `read_json` (the
fast path), then taken like an appended tail (`Store.take_staged`). A range the fast read cannot
vouch for is read again line by line (`Store.stage_lines`), so that the error names the exact
line and seq. Beside it, the strict scan (strictscan.py) reads every line as audit does.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from .engine import duckdb
from . import strictscan
from .batches import whole_tail
from .errors import LogProblem
from .logfile import (Tail, chunk_bounds, copy_range, count_lines, decode_lines, feed_pipe,
                      last_line, read_lines)
from .queries import sql

if TYPE_CHECKING:
    from .load import Store

# A cold load reads the log in ranges of about this many bytes (DESIGN §2.5: memory), so that
# its peak is what is loaded plus one range's scratch (raw rows, parsed states), not the whole
# log parsed at once. Measured at 5M events (6.1 GB log, bench/bench_view.py): 1 GiB ranges
# peak at 3.1 GB in 53 s (1.5 GiB: 3.4 GB; one piece: 9.7 GB in 44 s). A range's scratch grows
# with what its lines hold: on 850k long-valued entries in 1M events (1.4 GB log, bench/synth.py
# --long --wide) one 1 GiB range peaked at 4.4 GB, 512 MiB ranges at 2.3 GB, for 23% more CPU
# (8% more on the 1M bench store, 1.8 -> 1.4 GB). INSPECTOR_COLD_CHUNK_BYTES sets another size.
COLD_CHUNK_BYTES = 1 << 29

# When the rows a cold load has read hold more than this, they are moved into the view file it
# writes as it reads (viewbuild.py) before the next range, or compressed (compact_memory) when
# it writes none (a read-only store): at 5M events compressing halved the peak, and moving them
# out of memory keeps the peak at one range's scratch and this. INSPECTOR_COLD_FOLD_BYTES sets
# another size.
COLD_COMPACT_BYTES = 1 << 30


def cold_compact_bytes() -> int:
    try:
        return max(0, int(os.environ.get("INSPECTOR_COLD_FOLD_BYTES", COLD_COMPACT_BYTES)))
    except ValueError:
        return COLD_COMPACT_BYTES


def cold_chunk_bytes() -> int:
    try:
        return max(1, int(os.environ.get("INSPECTOR_COLD_CHUNK_BYTES", COLD_CHUNK_BYTES)))
    except ValueError:
        return COLD_CHUNK_BYTES


class _NeedExactRead(Exception):
    """The fast read cannot vouch for the log: read it line by line to say what is wrong."""


def load_cold(store: "Store") -> None:
    """The whole log, a range of lines at a time (cold_chunk_bytes each): each range is read
    fast, then taken like an appended tail, so memory holds what is loaded plus one range's
    scratch, never the whole log's. A range the fast read cannot vouch for is read again line
    by line, which names the line. Beside it, the strict scan reads every line as audit does:
    a line DuckDB's reader took but the strict reading refuses (a duplicated key) makes the
    load start again, exact from that line's range."""
    log = store.paths.log
    st = os.stat(log)           # the file the load reads: before anything is read from it
    identity = st.st_dev, st.st_ino
    tail = whole_tail(log)
    bom = tail.end > 0 and _starts_with_bom(log)
    bounds = chunk_bounds(log, tail.end, cold_chunk_bytes())
    scan = None if bom or not tail.end else strictscan.Scan(log, 0, tail.end)
    try:
        try:
            _take_ranges(store, identity, tail, bounds, exact_from=0 if bom else None)
        except LogProblem:
            # A line the strict scan refuses may lie before the one refused here.
            refused = scan.result() if scan else None
            if refused is None:
                raise
        else:
            refused = scan.result() if scan else None
    except BaseException:
        if scan is not None:
            scan.stop()
        raise
    if refused is not None:
        store.reset()
        _take_ranges(store, identity, tail, bounds, exact_from=refused)
    store.finish(tail)


def _take_ranges(store: "Store", identity: tuple[int, int], tail: Tail,
                 bounds: list[tuple[int, int]], exact_from: int | None) -> None:
    """Load the ranges of the log file `identity` (device, inode) in order: fast, or exact from
    the range holding `exact_from`."""
    store.state.dev, store.state.inode = identity
    limit = cold_compact_bytes()
    for start, end in bounds:
        store.shed(limit)
        try:
            _take_range(store, start, end, exact=exact_from is not None and end > exact_from,
                        torn=tail.torn if len(bounds) == 1 else None, ends=end == tail.end)
        except LogProblem:
            if end == tail.end:
                raise
            # The refusal counts the bad lines of the whole rest of the log, as a load in one
            # piece would: read the rest line by line (it is refused again).
            store.drop_scratch()
            _take_range(store, start, tail.end, exact=True, torn=None, ends=True)
            break


def _take_range(store: "Store", start: int, end: int, exact: bool, torn: bytes | None,
                ends: bool) -> None:
    """Load the complete lines between two offsets after what is loaded (`ends`: the last of
    the log's complete lines is among them)."""
    extras: dict[int, str] = {}
    try:
        if exact:
            raise _NeedExactRead()
        _read_fast(store, start, end, torn)
    except (duckdb.Error, _NeedExactRead):
        store.drop_scratch()
        extras = store.stage_lines(decode_lines(read_lines(store.paths.log, start, end)),
                                   store.state.seq + 1)
    store.take_staged(extras, ends=ends)
    store.finish(Tail(size=end, end=end, torn=b""))


def _read_fast(store: "Store", start: int, end: int, torn: bytes | None) -> None:
    """DuckDB's parallel JSON reader over bytes start..end of the log: the file itself when that
    is the whole log (`torn` is then what follows `end`), else an anonymous copy of the range
    (logfile.copy_range), else a pipe fed from it (read by one thread)."""
    log, con, state = store.paths.log, store.con, store.state
    fed: list[tuple[int, int]] = []          # (lines, bytes) DuckDB was given
    copy = None if torn is not None else copy_range(log, start, end)
    pipe = None
    if torn is not None:
        source, counted = str(log), end
    elif copy is not None:
        source, counted = f"/proc/self/fd/{copy[0]}", copy[1]
    else:
        pipe, write_end = os.pipe()
        source = f"/proc/self/fd/{pipe}"
        feeder = threading.Thread(target=feed_pipe, args=(log, start, end, write_end, fed))
    if pipe is None:
        feeder = threading.Thread(target=lambda: fed.append(
            (count_lines(Path(source), counted), counted)))
    feeder.start()
    try:
        con.execute(sql("read_log"), {"path": source})
    finally:
        if pipe is not None:
            os.close(pipe)              # a read that stopped early ends the feed
        feeder.join()
        if copy is not None:
            os.close(copy[0])           # the kernel frees the copy
    (lines, sent), = fed
    rows = con.execute(sql("raw_file_count")).fetchone()[0]
    if sent != end - start or rows != lines + (1 if torn and torn.strip() else 0):
        raise _NeedExactRead()
    if rows > lines:                    # the torn line after `end`: not an event
        con.execute(sql("raw_file_drop_torn"), {"n": lines})
    first_line = state.seq + 1
    con.execute(sql("raw_first_line"), {"first_line": first_line})
    con.execute(sql("raw_view_file"))
    if store.problems(first_line=first_line, prev_seq=state.seq, chained_before=state.chained):
        raise _NeedExactRead()
    # The head is read strictly (Store.finish); DuckDB's reader took a line the strict reading
    # refuses (a duplicated key) or whose envelope it read as text ("hash": 5): the exact read
    # names it.
    strict_error, _, mistyped = strictscan.judge_line(last_line(log, end).decode("utf-8", "replace"))
    if strict_error or mistyped:
        raise _NeedExactRead()


def _starts_with_bom(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(3) == b"\xef\xbb\xbf"
