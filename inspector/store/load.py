"""Loading a store's log into DuckDB: events -> versions -> current entries (DESIGN §2, §7).

A store opens on its persistent view when view.py proves it current; else the whole log is
read (coldload.py: a parallel `read_json` a range at a time, line by line where it shows a
problem, so that the error names the exact line and seq), and becomes the new view. Lines
appended later are taken by `Store.refresh()` through the same line-by-line path, and
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
from .batches import Run, cut_short, join_runs, whole_tail
from .chain import GENESIS, line_bytes, seal_after
from .errors import BadInput, LogProblem, LogReplaced
from .logfile import StorePaths, Tail, decode_lines, last_line, read_lines, store_paths, warn_once
from .contract import MAX_SCOPE_SEGMENTS, value_problem
from .model import (KINDS, LAYERS, OPS, SOURCE_CLASSES, STATUSES, now_text, scope_blank_error,
                    scope_filter_error)
from .queries import sql
from . import coldload, connection, view, viewbuild
from .recovery import settle_if_idle
from .strictscan import judge_line

TAKE = ("staged_versions", "versions_insert", "version_keys_insert", "known_ids_insert",
        "entries_touch", "entries_forget", "entries_refresh", "edges_forget", "edges_refresh")
SOURCE_RE = r"(%s):[^/\s]+(/.*)?" % "|".join(SOURCE_CLASSES)
RAW = ("drop_raw", "drop_raw_file", "drop_raw_parsed", "drop_raw_lines")
SCRATCH = (*RAW, "drop_staged_versions", "drop_staged")
CLEAR = ("clear_versions", "clear_entries", "clear_edges", "clear_known_ids",
         "clear_version_keys", "clear_touched", "clear_cites", "clear_cites_seq")


# A long-lived reader (the TUI) compresses the tables it built (its belief view, its screens'
# rows) when DuckDB holds more than this: at 5M events the TUI's tables take 394 MB as built
# and 72 MB compressed, for two checkpoints of about 0.6 s each.
COMPACT_BYTES = 256 << 20


@dataclass
class LoadState:
    """How far the log has been loaded."""

    offset: int = 0             # bytes of complete lines loaded
    seq: int = 0                # last seq loaded
    hash: str | None = None     # its hash (None for an unchained line)
    line: str | None = None     # the SHA-256 of its bytes (view.Mark.line)
    chained: bool = False       # a chained line has been seen
    unchained: int = 0          # unchained lines (all before the first chained one)
    inode: int | None = None
    dev: int | None = None
    torn: bytes = b""           # an incomplete last line, ignored
    warnings: list[str] = field(default_factory=list)
    # A batch whose run the lines loaded so far leave short: a cold load's next range goes on
    # with it (batches.join_runs). A load that ends has none: it would be cut short.
    open_batch: Run | None = None


class Store:
    """A store directory loaded into an in-memory DuckDB database.

    `scope` is the hard filter of DESIGN §8: only entries whose current state lies inside it
    are loaded. Calls that change tables hold `lock`; other threads read through `cursor()`.
    """

    def __init__(self, root: str | os.PathLike, *, scope: str | None = None, warn: bool = True,
                 on_whole_read: Callable[[int, str], None] | None = None):
        if (why := scope_filter_error(scope)) is not None:
            raise BadInput(why)
        self.paths: StorePaths = store_paths(root)
        self.scope = scope
        # Told (log bytes, why) when the whole log is about to be read: the slow path.
        self.on_whole_read = on_whole_read
        self.state = LoadState()
        self.lock = threading.RLock()
        exposure = warn_once(self.paths) if warn else None
        if exposure:
            self.state.warnings.append(exposure)
        if (settled := settle_if_idle(self.paths)) is not None:
            self.state.warnings.append(settled)
        self.con = connection.prepared(scope)
        self.base_seq = 0               # the last seq the attached persistent view holds
        self.build: viewbuild.Build | None = None   # the view file a cold load writes
        self.generation = 0             # how many times the whole log was loaded again
        self._in_scratch = False
        self._load_all()
        self._check_scope()

    def _check_scope(self) -> None:
        """A --scope with a blank at a segment's edge is taken only when an entry is inside
        it (model.scope_blank_error); else BadInput, as for an empty segment."""
        why = scope_blank_error(self.scope)
        if why is not None and not self.con.execute(sql("scope_holds"),
                                                    {"scope": self.scope}).fetchone()[0]:
            self.close()
            raise BadInput(why)

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
        are read), else the whole log, which then becomes the new view. A log replaced while
        it was read (an erasure renamed its rewrite into place) is read again from the start,
        once; replaced again, LogReplaced (one line, exit 3)."""
        try:
            self._load_once(publish)
        except LogReplaced:
            self.drop_scratch()
            self.reset()
            self.state.warnings.append(f"{self.paths.root}: read the whole log again: the log "
                                       "was replaced while it was read (an erasure or a rollback)")
            self._load_once(publish, told=True)

    def _load_once(self, publish: bool, told: bool = False) -> None:
        found = self._attach_view()
        if isinstance(found, view.Mark):
            self.state = LoadState(offset=found.offset, seq=found.seq, hash=found.hash,
                                   line=found.line,
                                   chained=found.chained, unchained=found.unchained,
                                   inode=found.ino, dev=found.dev, warnings=self.state.warnings)
            with self._same_log():
                self._take_tail()
            if publish and self.state.seq - self.base_seq >= view.REPUBLISH_LINES:
                self._publish()
            return
        note = f"{self.paths.root}: read the whole log again: {found}"
        if found and not told and note not in self.state.warnings:
            # (once: a view not published, because a writer held the lock, is met again when
            # the log is read once more; helper-71 saw the note twice)
            self.state.warnings.append(note)
        if self.on_whole_read is not None:
            self.on_whole_read(os.path.getsize(self.paths.log), found)
        with self._same_log():
            self._load_cold(publish)
        if publish:
            self._publish()

    def _load_cold(self, publish: bool) -> None:
        """The whole log (coldload.py), written into a new view file as it is read when a view
        of it is to be published (viewbuild.py: memory then holds one range's rows, not the
        whole store's); in memory when the file cannot take them."""
        if publish:
            self.build = viewbuild.begin(self.con, self.paths, os.path.getsize(self.paths.log))
        try:
            coldload.load_cold(self)
        except viewbuild.BuildFailed:
            self.drop_scratch()
            self.reset()
            coldload.load_cold(self)
        except BaseException:
            self._drop_build()
            raise

    def _drop_build(self) -> None:
        """Delete the view file a cold load was writing, and put the empty `base` back."""
        if self.build is None:
            return
        self.build.abandon()
        self.build = None
        self.base_seq = 0
        connection.attach_empty_base(self.con)

    def shed(self, limit: int) -> None:
        """Between a cold load's ranges: when DuckDB holds more than `limit` bytes of rows, move
        them into the view file being built (viewbuild.Build.fold), or compress them when there
        is none (compact_over)."""
        if self.build is None:
            self.compact_over(limit)
            return
        with self.lock:
            if self.con.execute(sql("memory_not_cached")).fetchone()[0] > limit:
                self.build.fold()
                self.base_seq = self.state.seq

    @contextmanager
    def _same_log(self) -> Iterator[None]:
        """Around a read of the log by its path: LogReplaced when the file there is no longer
        the one the read started on (state.dev, state.inode), whether the read then failed on
        the other file's bytes (a line cut in two, a bad line) or took them without a word."""
        try:
            yield
        except Exception:
            if self._replaced():
                raise LogReplaced(str(self.paths.root)) from None
            raise
        if self._replaced():
            raise LogReplaced(str(self.paths.root))

    def _replaced(self) -> bool:
        if self.state.inode is None:
            return False            # the read failed before it knew which file it read
        try:
            st = os.stat(self.paths.log)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) != (self.state.dev, self.state.inode)

    def _attach_view(self) -> "view.Mark | str":
        self.con.execute(sql("base_detach"))
        found = view.attach(self.con, self.paths)
        if isinstance(found, view.Mark):
            self.base_seq = found.seq
        else:
            self.base_seq = 0
            connection.attach_empty_base(self.con)
        return found

    def mark(self) -> "view.Mark":
        """Where the loaded tables stand in the log."""
        st = self.state
        return view.Mark(st.dev, st.inode, st.offset, st.seq, st.hash, st.chained, st.unchained,
                         st.line)

    def _publish(self) -> None:
        """Write what is loaded as the new persistent view, then load again from it: the rows
        read into memory are freed, and what is answered is what every later command reads
        (the view just written, or one another process wrote since, both proven current)."""
        if self.build is not None:
            # The view file was written as the log was read: finish it, then read it.
            build, self.build = self.build, None
            published = build.finish(self.mark())
            if not published and self._replaced():
                # Replaced while the new view waited for its rename (helper-71: the log read
                # again said nothing of it); what is answered is the log there now.
                self.state.warnings.append(
                    f"{self.paths.root}: read the whole log again: the log was replaced while it "
                    "was read (an erasure or a rollback)")
            self.reset()
            self._load_all(publish=False)
            return
        if self._in_scratch or self.state.inode is None:
            return
        if not view.publish(self.con, self.paths, self.mark(), release=True):
            if self._released():
                # The write let the tables go and then failed: read the store again, from
                # the view there is, or the log (without publishing: the failure would repeat).
                self.reset()
                self._load_all(publish=False)
            note = (f"{self.paths.root}: the store is on a read-only file system: the log was "
                    "read whole and no view of it kept (every command reads it whole again)")
            if self.state.offset >= view.min_log_bytes() and note not in self.state.warnings \
                    and view.on_read_only_fs(self.paths):
                self.state.warnings.append(note)
            return
        self.reset()
        self._load_all(publish=False)

    def _released(self) -> bool:
        """Whether a publish emptied the tables read since the view while lines were loaded."""
        return self.state.seq > self.base_seq and \
            not self.con.execute(sql("versions_new_any")).fetchone()[0]

    # -- numbered lines: a tail, the whole log when it has a problem, or events to come -----

    def stage_lines(self, texts: list[str | None], first_line: int) -> dict[int, str]:
        """Numbered lines into `raw`; returns what contract.extras_problem finds on them
        (line number -> problem), for `take_staged`."""
        judged = [judge_line(t) for t in texts]
        self.con.execute(sql("raw_lines"), {
            "line_nos": list(range(first_line, first_line + len(texts))), "texts": texts,
            "errors": [error for error, _, _ in judged],
            "mistyped": [fields for _, _, fields in judged]})
        self.con.execute(sql("raw_parse_lines"))
        self.con.execute(sql("raw_view_lines"))
        problems = self.problems(first_line=first_line, prev_seq=first_line - 1,
                                 chained_before=self.state.chained)
        if problems:
            raise LogProblem(*problems[0], more=len(problems) - 1, store=str(self.paths.root))
        return {first_line + i: extras for i, (_, extras, _) in enumerate(judged) if extras}

    def problems(self, **params) -> list[tuple[int, int | None, str]]:
        """What is wrong with the lines in `raw`: (line, seq, reason), in the log's order."""
        params.update(ops=list(OPS))
        return self.con.execute(sql("log_problems"), params).fetchall()

    def take_staged(self, extras: dict[int, str], ends: bool = True) -> None:
        """Turn the lines in `raw` into versions and refresh the entries they touch; `extras`:
        what `stage_lines` found (a fast read holds no such line: the strict scan sends it to
        the exact read). `ends`: no line follows them in this load (a cold load's last range,
        a tail)."""
        self.con.execute(sql("staged"))
        for name in RAW:            # staged holds all that is read of them: let them go now
            self.con.execute(sql(name))
        problems = self.con.execute(sql("state_problems")).fetchall()
        if problems:
            raise LogProblem(*problems[0], more=len(problems) - 1, store=str(self.paths.root))
        open_batch = self._batches_whole(ends)
        self.con.execute(sql("staged_malformed"), {
            "kinds": list(KINDS), "statuses": list(STATUSES), "layers": list(LAYERS),
            "source_re": SOURCE_RE, "max_segments": MAX_SCOPE_SEGMENTS})
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
        self.state.open_batch = open_batch

    def _batches_whole(self, ends: bool) -> Run | None:
        """Refuse the staged lines when they hold a batch cut short with lines after it
        (DESIGN §5, all or nothing: no reader applies a prefix of a batch; only the last batch
        of the log, unfinished, is set aside, by whole_tail). Returns the batch left short at
        their end when more lines follow in this load."""
        rows = self.con.execute(sql("staged_batch_runs")).fetchall()
        runs = [Run(*row[:6]) for row in rows]
        first, last = (rows[0][6], rows[0][7]) if rows else (None, None)
        carry, cut = join_runs(self.state.open_batch, runs, first, last, ends)
        if cut:
            run = cut[0]
            raise LogProblem(run.first_line, run.first_seq, cut_short(run.batch, run.n, run.size),
                             more=len(cut) - 1, store=str(self.paths.root))
        return carry

    def _staged_counts(self) -> tuple[int, int]:
        return self.con.execute(sql("staged_counts")).fetchone()

    def finish(self, tail: Tail) -> None:
        """Record that the log is loaded up to `tail` (its head read strictly), and drop the
        scratch tables."""
        if tail.end > self.state.offset:
            count, unchained = self._staged_counts()
            self.state.unchained += unchained
            self.state.chained = self.state.chained or unchained < count
            raw = last_line(self.paths.log, tail.end)
            line = jsonsafe.loads(raw)
            self.state.seq, self.state.hash = line["seq"], line.get("hash")
            self.state.line = view.line_digest(raw)
        self.state.offset = tail.end
        self.state.torn = tail.torn
        self.drop_scratch()
        self.state.warnings = [w for w in self.state.warnings if "incomplete last line" not in w]
        if tail.torn:
            self.state.warnings.append(
                f"{self.paths.log}: ignored an incomplete last line or an unfinished batch "
                f"({len(tail.torn)} bytes at offset {tail.end}); the next append moves it to "
                f"torn/{tail.end}")

    def compact(self) -> bool:
        """Compress the tables in memory once DuckDB holds more than COMPACT_BYTES (a long-lived
        reader, after building its tables); return whether it did."""
        return self.compact_over(COMPACT_BYTES)

    def compact_over(self, limit: int) -> bool:
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

    def drop_scratch(self) -> None:
        """Drop the tables of lines being read (raw rows, parsed states)."""
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
            try:
                with self._same_log():
                    self._take_tail()
            except LogReplaced:         # replaced after the look above: read the new one
                self.drop_scratch()
                self.reload()
            return self.state.seq - before

    def _take_tail(self) -> None:
        """Load the complete lines after the loaded offset."""
        tail = whole_tail(self.paths.log, self.state.offset)
        if tail.end > self.state.offset:
            lines = decode_lines(read_lines(self.paths.log, self.state.offset, tail.end))
            self.take_staged(self.stage_lines(lines, self.state.seq + 1))
        self.finish(tail)

    def reload(self) -> None:
        """Drop what was loaded and load the whole log again."""
        with self.lock:
            self.reset()
            self.generation += 1
            self._load_all()

    def reset(self) -> None:
        """Drop everything loaded: the tables are as before the first line."""
        self._drop_build()
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
            self.take_staged(self.stage_lines([line_bytes(e).decode("utf-8")[:-1] for e in events],
                                                self.state.seq + 1))
        return events

    @contextmanager
    def what_if(self, drafts: list[dict]) -> Iterator[list[dict]]:
        """Inside the block the tables hold the store with `drafts` appended; then nothing."""
        with self.scratch():
            yield self.stage(drafts)

    def close(self) -> None:
        self.con.close()
