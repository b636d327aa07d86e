"""Loading a store's log into DuckDB: events -> versions -> current entries (DESIGN §2, §7).

The whole log is read in one parallel `read_json` (the fast path). When that read shows any
problem, the log is read again line by line so that the error names the exact line and seq.
Lines appended later are taken by `Store.refresh()` through the same line-by-line path, and
`Store.what_if()` runs events that are not written yet through it inside a transaction that
is rolled back: the store as it would be, for plans and for the write gate.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from .engine import duckdb
from . import jsonsafe
from .batches import whole_tail
from .chain import GENESIS, line_bytes, seal_after
from .errors import LogProblem
from .logfile import (StorePaths, Tail, chunk_bounds, copy_range, count_lines, decode_lines,
                      feed_pipe, last_line, read_lines, store_paths, warn_once)
from .contract import extras_problem, value_problem
from .model import KINDS, LAYERS, OPS, SOURCE_CLASSES, STATUSES, now_text
from .queries import sql
from . import connection, strictscan, view
from .connection import EMPTY_BASE

TAKE = ("versions_insert", "known_ids_insert", "entries_touch", "entries_forget",
        "entries_refresh", "edges_forget", "edges_refresh")
SOURCE_RE = r"(%s):[^/\s]+(/.*)?" % "|".join(SOURCE_CLASSES)
SCRATCH = ("drop_raw", "drop_staged", "drop_raw_file", "drop_raw_parsed", "drop_raw_lines")
CLEAR = ("clear_versions", "clear_entries", "clear_edges", "clear_known_ids", "clear_touched",
         "clear_cites", "clear_cites_seq")


# A cold load reads the log in ranges of about this many bytes (DESIGN §2.5: memory), so that
# its peak is what is loaded plus one range's scratch (raw rows, parsed states), not the whole
# log parsed at once. Measured at 5M events (6.1 GB log, bench/bench_view.py): 1 GiB ranges
# peak at 3.1 GB in 53 s (1.5 GiB: 3.4 GB; one piece: 9.7 GB in 44 s); smaller ranges cost
# time (256 MiB ranges through a pipe doubled the 1M load). INSPECTOR_COLD_CHUNK_BYTES sets
# another size.
COLD_CHUNK_BYTES = 1 << 30

# When the tables a cold load has built so far hold more than this, they are compressed
# (compact_memory) before the next range: at 5M events that halves the peak.
COLD_COMPACT_BYTES = 1 << 30

# A long-lived reader (the TUI) compresses the tables it built (its belief view, its screens'
# rows) when DuckDB holds more than this: at 5M events the TUI's tables take 394 MB as built
# and 72 MB compressed, for two checkpoints of about 0.6 s each.
COMPACT_BYTES = 256 << 20


def cold_chunk_bytes() -> int:
    try:
        return max(1, int(os.environ.get("INSPECTOR_COLD_CHUNK_BYTES", COLD_CHUNK_BYTES)))
    except ValueError:
        return COLD_CHUNK_BYTES


class _NeedExactRead(Exception):
    """The fast read cannot vouch for the log: read it line by line to say what is wrong."""


@dataclass
class LoadState:
    """How far the log has been loaded."""

    offset: int = 0             # bytes of complete lines loaded
    seq: int = 0                # last seq loaded
    hash: str | None = None     # its hash (None for an unchained line)
    chained: bool = False       # a chained line has been seen
    unchained: int = 0          # unchained lines (all before the first chained one)
    inode: int | None = None
    dev: int | None = None
    torn: bytes = b""           # an incomplete last line, ignored
    warnings: list[str] = field(default_factory=list)


class Store:
    """A store directory loaded into an in-memory DuckDB database.

    `scope` is the hard filter of DESIGN §8: only entries whose current state lies inside it
    are loaded. Calls that change tables hold `lock`; other threads read through `cursor()`.
    """

    def __init__(self, root: str | os.PathLike, *, scope: str | None = None, warn: bool = True,
                 on_whole_read: Callable[[int, str], None] | None = None):
        self.paths: StorePaths = store_paths(root)
        self.scope = scope
        # Told (log bytes, why) when the whole log is about to be read: the slow path.
        self.on_whole_read = on_whole_read
        self.state = LoadState()
        self.lock = threading.RLock()
        exposure = warn_once(self.paths) if warn else None
        if exposure:
            self.state.warnings.append(exposure)
        self.con = connection.prepared(scope)
        self.base_seq = 0               # the last seq the attached persistent view holds
        self.generation = 0             # how many times the whole log was loaded again
        self._in_scratch = False
        self._load_all()

    @property
    def root(self) -> Path:
        return self.paths.root

    @property
    def head(self) -> str | None:
        """`SEQ:HASH` of the last loaded line, or None for an empty log."""
        if self.state.seq == 0:
            return None
        return f"{self.state.seq}:{self.state.hash or ''}"

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cursor = self.con.cursor()
        cursor.execute(sql("no_progress_bar"))
        return cursor

    # -- the whole log ----------------------------------------------------------------------

    def _load_all(self, publish: bool = True) -> None:
        """The persistent view when it is proven current (then only the lines appended since
        are read), else the whole log, which then becomes the new view."""
        found = self._attach_view()
        if isinstance(found, view.Mark):
            self.state = LoadState(offset=found.offset, seq=found.seq, hash=found.hash,
                                   chained=found.chained, unchained=found.unchained,
                                   inode=found.ino, dev=found.dev, warnings=self.state.warnings)
            self._take_tail()
            if publish and self.state.seq - self.base_seq >= view.REPUBLISH_LINES:
                self._publish()
            return
        if found:
            self.state.warnings.append(f"{self.paths.root}: read the whole log again: {found}")
        if self.on_whole_read is not None:
            self.on_whole_read(os.path.getsize(self.paths.log), found)
        self._load_cold()
        if publish:
            self._publish()

    def _attach_view(self) -> "view.Mark | str":
        self.con.execute(sql("base_detach"))
        found = view.attach(self.con, self.paths)
        if isinstance(found, view.Mark):
            self.base_seq = found.seq
        else:
            self.base_seq = 0
            self._attach_empty_base()
        return found

    def _attach_empty_base(self) -> None:
        for name in ("base_attach_empty", *EMPTY_BASE):
            self.con.execute(sql(name))

    def _mark(self) -> "view.Mark":
        st = self.state
        return view.Mark(st.dev, st.inode, st.offset, st.seq, st.hash, st.chained, st.unchained)

    def _publish(self) -> None:
        """Write what is loaded as the new persistent view, then load again from it: the rows
        read into memory are freed, and what is answered is what every later command reads
        (the view just written, or one another process wrote since, both proven current)."""
        if self._in_scratch or self.state.inode is None:
            return
        if not view.publish(self.con, self.paths, self._mark()):
            return
        self._reset()
        self._load_all(publish=False)

    def _load_cold(self) -> None:
        """The whole log, a range of lines at a time (cold_chunk_bytes each): each range is
        read fast, then taken like an appended tail, so memory holds what is loaded plus one
        range's scratch, never the whole log's. A range the fast read cannot vouch for is read
        again line by line, which names the line. Beside it, the strict scan (strictscan.py)
        reads every line as audit does: a line DuckDB's reader took but the strict reading
        refuses (a duplicated key) makes the load start again, exact from that line's range."""
        tail = whole_tail(self.paths.log)
        bom = tail.end > 0 and _starts_with_bom(self.paths.log)
        bounds = chunk_bounds(self.paths.log, tail.end, cold_chunk_bytes())
        scan = None if bom or not tail.end else strictscan.Scan(self.paths.log, 0, tail.end)
        try:
            try:
                self._take_ranges(tail, bounds, exact_from=0 if bom else None)
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
            self._reset()
            self._take_ranges(tail, bounds, exact_from=refused)
        self._finish(tail)

    def _take_ranges(self, tail: Tail, bounds: list[tuple[int, int]],
                     exact_from: int | None) -> None:
        """Load the ranges in order: fast, or exact from the range holding `exact_from`."""
        st = os.stat(self.paths.log)
        self.state.inode, self.state.dev = st.st_ino, st.st_dev
        for start, end in bounds:
            self._compact_over(COLD_COMPACT_BYTES)
            try:
                self._take_range(start, end, exact=exact_from is not None and end > exact_from,
                                 torn=tail.torn if len(bounds) == 1 else None)
            except LogProblem:
                if end == tail.end:
                    raise
                # The refusal counts the bad lines of the whole rest of the log, as a load in
                # one piece would: read the rest line by line (it is refused again).
                self._drop_scratch()
                self._take_range(start, tail.end, exact=True, torn=None)
                break

    def _take_range(self, start: int, end: int, exact: bool, torn: bytes | None) -> None:
        """Load the complete lines between two offsets after what is loaded."""
        extras: dict[int, str] = {}
        try:
            if exact:
                raise _NeedExactRead()
            self._read_fast(start, end, torn)
        except (duckdb.Error, _NeedExactRead):
            self._drop_scratch()
            extras = self._stage_lines(decode_lines(read_lines(self.paths.log, start, end)),
                                       self.state.seq + 1)
        self._take_staged(extras)
        self._finish(Tail(size=end, end=end, torn=b""))

    def _read_fast(self, start: int, end: int, torn: bytes | None) -> None:
        """DuckDB's parallel JSON reader over bytes start..end of the log: the file itself when
        that is the whole log (`torn` is then what follows `end`), else an anonymous copy of
        the range (logfile.copy_range), else a pipe fed from it (read by one thread)."""
        fed: list[tuple[int, int]] = []          # (lines, bytes) DuckDB was given
        copy = None if torn is not None else copy_range(self.paths.log, start, end)
        pipe = None
        if torn is not None:
            source, counted = str(self.paths.log), end
        elif copy is not None:
            source, counted = f"/proc/self/fd/{copy[0]}", copy[1]
        else:
            pipe, write_end = os.pipe()
            source = f"/proc/self/fd/{pipe}"
            feeder = threading.Thread(target=feed_pipe, args=(
                self.paths.log, start, end, write_end, fed))
        if pipe is None:
            feeder = threading.Thread(target=lambda: fed.append(
                (count_lines(Path(source), counted), counted)))
        feeder.start()
        try:
            self.con.execute(sql("read_log"), {"path": source})
        finally:
            if pipe is not None:
                os.close(pipe)              # a read that stopped early ends the feed
            feeder.join()
            if copy is not None:
                os.close(copy[0])           # the kernel frees the copy
        (lines, sent), = fed
        rows = self.con.execute(sql("raw_file_count")).fetchone()[0]
        if sent != end - start or rows != lines + (1 if torn and torn.strip() else 0):
            raise _NeedExactRead()
        if rows > lines:                    # the torn line after `end`: not an event
            self.con.execute(sql("raw_file_drop_torn"), {"n": lines})
        first_line = self.state.seq + 1
        self.con.execute(sql("raw_first_line"), {"first_line": first_line})
        self.con.execute(sql("raw_view_file"))
        if self._problems(first_line=first_line, prev_seq=self.state.seq,
                          chained_before=self.state.chained):
            raise _NeedExactRead()
        # The head is read strictly (_finish); DuckDB's reader took a line the strict reading
        # refuses (a duplicated key): the exact read names it.
        if _strict_error(last_line(self.paths.log, end).decode("utf-8", "replace")):
            raise _NeedExactRead()

    # -- numbered lines: a tail, the whole log when it has a problem, or events to come -----

    def _stage_lines(self, texts: list[str | None], first_line: int) -> dict[int, str]:
        """Numbered lines into `raw`; returns what contract.extras_problem finds on them
        (line number -> problem), for `_take_staged`."""
        judged = [_judge_line(t) for t in texts]
        self.con.execute(sql("raw_lines"), {
            "line_nos": list(range(first_line, first_line + len(texts))), "texts": texts,
            "errors": [error for error, _ in judged]})
        self.con.execute(sql("raw_parse_lines"))
        self.con.execute(sql("raw_view_lines"))
        problems = self._problems(first_line=first_line, prev_seq=first_line - 1,
                                  chained_before=self.state.chained)
        if problems:
            raise LogProblem(*problems[0], more=len(problems) - 1, store=str(self.paths.root))
        return {first_line + i: extras for i, (_, extras) in enumerate(judged) if extras}

    def _problems(self, **params) -> list[tuple[int, int | None, str]]:
        params.update(ops=list(OPS))
        return self.con.execute(sql("log_problems"), params).fetchall()

    def _take_staged(self, extras: dict[int, str]) -> None:
        """Turn the lines in `raw` into versions and refresh the entries they touch; `extras`:
        what `_stage_lines` found (a fast read holds no such line: the strict scan sends it to
        the exact read)."""
        self.con.execute(sql("staged"))
        problems = self.con.execute(sql("state_problems")).fetchall()
        if problems:
            raise LogProblem(*problems[0], more=len(problems) - 1, store=str(self.paths.root))
        self.con.execute(sql("staged_malformed"), {
            "kinds": list(KINDS), "statuses": list(STATUSES), "layers": list(LAYERS),
            "source_re": SOURCE_RE})
        # Fields the SQL does not judge (unknown extras): the first problem in the state's
        # order, the value's included.
        for line_no, problem in extras.items():
            self.con.execute(sql("staged_mark_malformed"), {"line_no": line_no, "problem": problem})
        for line_no, text in self.con.execute(sql("staged_value_suspects")).fetchall():
            problem = value_problem(jsonsafe.loads_stored(text), depth=1)
            if problem:
                self.con.execute(sql("staged_mark_malformed"),
                                 {"line_no": line_no, "problem": f'field "value" {problem}'})
        for name in TAKE:
            if name != "entries_touch" or self.base_seq:
                self.con.execute(sql(name))

    def _staged_counts(self) -> tuple[int, int]:
        return self.con.execute(sql("staged_counts")).fetchone()

    def _finish(self, tail: Tail) -> None:
        if tail.end > self.state.offset:
            count, unchained = self._staged_counts()
            self.state.unchained += unchained
            self.state.chained = self.state.chained or unchained < count
            line = jsonsafe.loads(last_line(self.paths.log, tail.end))
            self.state.seq, self.state.hash = line["seq"], line.get("hash")
        self.state.offset = tail.end
        self.state.torn = tail.torn
        self._drop_scratch()
        self.state.warnings = [w for w in self.state.warnings if "incomplete last line" not in w]
        if tail.torn:
            self.state.warnings.append(
                f"{self.paths.log}: ignored an incomplete last line or an unfinished batch "
                f"({len(tail.torn)} bytes at offset {tail.end}); the next append moves it to "
                f"torn/{tail.end}")

    def compact(self) -> bool:
        """Compress the tables in memory once DuckDB holds more than COMPACT_BYTES (a long-lived
        reader, after building its tables); return whether it did."""
        return self._compact_over(COMPACT_BYTES)

    def _compact_over(self, limit: int) -> bool:
        """An in-memory database's checkpoint (it compresses the tables and drops deleted rows)
        when DuckDB holds more than `limit` bytes; return whether it ran. Best effort: a
        checkpoint refuses to run beside another cursor's uncommitted write, and may beside a
        read in progress (with readers busy nonstop, about half ran); then nothing is done."""
        with self.lock:
            try:
                if self.con.execute(sql("memory_in_use")).fetchone()[0] <= limit:
                    return False
                self.con.execute(sql("compact_memory"))
                return True
            except duckdb.Error:
                return False

    def _drop_scratch(self) -> None:
        for name in SCRATCH:
            self.con.execute(sql(name))

    # -- appended lines ---------------------------------------------------------------------

    def refresh(self) -> int:
        """Load lines appended since the last load; return how many events were added.

        A log that was rewritten (an erasure) or shrank is loaded again from the start.
        """
        with self.lock:
            st = os.stat(self.paths.log)
            before = self.state.seq
            if (st.st_dev, st.st_ino) != (self.state.dev, self.state.inode) \
                    or st.st_size < self.state.offset:
                self.reload()
                return self.state.seq - before
            self._take_tail()
            return self.state.seq - before

    def _take_tail(self) -> None:
        """Load the complete lines after the loaded offset."""
        tail = whole_tail(self.paths.log, self.state.offset)
        if tail.end > self.state.offset:
            lines = decode_lines(read_lines(self.paths.log, self.state.offset, tail.end))
            self._take_staged(self._stage_lines(lines, self.state.seq + 1))
        self._finish(tail)

    def reload(self) -> None:
        """Drop what was loaded and load the whole log again."""
        with self.lock:
            self._reset()
            self.generation += 1
            self._load_all()

    def _reset(self) -> None:
        for name in CLEAR:
            self.con.execute(sql(name))
        self.state = LoadState(warnings=self.state.warnings)

    # -- the store as it would be -------------------------------------------------------------

    def sealed(self, drafts: list[dict]) -> list[dict]:
        """Drafts as the writer would seal them after the loaded head (for what_if)."""
        return seal_after(drafts, self.state.seq, self.state.hash or GENESIS, now_text())

    @contextmanager
    def scratch(self) -> Iterator[None]:
        """A transaction that is always rolled back: whatever the block changes is gone."""
        with self.lock:
            self.con.execute("BEGIN")
            self._in_scratch = True
            try:
                yield
            finally:
                self._in_scratch = False
                self.con.execute("ROLLBACK")

    def stage(self, drafts: list[dict]) -> list[dict]:
        """Inside scratch(): load `drafts` as if appended after the head; return them sealed."""
        events = self.sealed(drafts)
        if events:
            self._take_staged(self._stage_lines([line_bytes(e).decode("utf-8")[:-1] for e in events],
                                                self.state.seq + 1))
        return events

    @contextmanager
    def what_if(self, drafts: list[dict]) -> Iterator[list[dict]]:
        """Inside the block the tables hold the store with `drafts` appended; then nothing."""
        with self.scratch():
            yield self.stage(drafts)

    def close(self) -> None:
        self.con.close()


def _starts_with_bom(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(3) == b"\xef\xbb\xbf"


def _strict_error(text: str | None) -> str | None:
    """What the strict reading (the one audit applies) finds wrong with a line that DuckDB's
    JSON reader would take: a byte-order mark, a duplicated key, a lone surrogate escape."""
    return _judge_line(text)[0]


def _judge_line(text: str | None) -> tuple[str | None, str | None]:
    """(what the strict reading finds wrong with the line, what contract.extras_problem finds
    wrong with its state's fields the SQL does not judge)."""
    if not text or not text.strip():
        return None, None
    try:
        event = jsonsafe.loads(text)
    except jsonsafe.NotStrict as exc:
        return str(exc), None
    except ValueError:
        return None, None      # not JSON at all: the SQL says so in its own words
    return None, extras_problem(event)
