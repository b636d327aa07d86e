"""What the importers share (DESIGN §10): reading the tables of a foreign SQLite file (opened
by source.py), refusing with a message that names what was found and what was expected, SQLite
times, turning mapped rows into events through the write gate, and building the new store
atomically.

An import never touches an existing store: it builds the whole log in a temporary sibling
directory (0700) and renames it into place at the end, so a refusal, an error, SIGTERM or
SIGHUP leaves either nothing or the finished store; what SIGKILL leaves, the next import in
the same directory removes (staging.py).
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ..store import gate
from ..store.detect import batch as text_batch
from ..store.detect.batch import Judged
from ..store.append import LogWriter, event_draft, init_store
from ..store.contract import MAX_DEPTH, value_problem
from ..store.files import fsync_dir
from ..store.errors import BadInput
from ..store.writes import InvalidEntry, admit
from ..store.load import Store
from ..store.model import format_time
from .staging import sweep, stage, stops_as_errors

# What SQLite files hold as times: `2024-07-20 10:00:00.123456`, `2025-03-01T09:00:00+00:00`, …
_SQLITE_TIME = re.compile(
    r"(\d{4}-\d\d-\d\d)[Tt ](\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?\s*([Zz]|[+-]\d\d:?\d\d)?")


class BadRow(ValueError):
    """A source row that cannot be mapped; the message says why, without the row's content."""


def quoted(text: str) -> str:
    """A row's text as a BadRow message quotes it: the text itself, between quotes. Not repr():
    the refusal and the skipped-rows list make its dangerous characters visible as they show
    any text, and repr's escapes were escaped again there (`'ADD\\\\x1b'`), and stood in the
    JSON `reason` instead of the text."""
    return f"'{text}'"


@dataclass
class Plan:
    """What an import would write: event drafts in log order, and the rows it could not map."""

    drafts: list[dict] = field(default_factory=list)
    bad_rows: list[tuple[int, str]] = field(default_factory=list)   # (rowid, reason)
    held: dict[str, str] = field(default_factory=dict)              # id -> held_reason

    def skipped_json(self) -> list[dict]:
        return [{"rowid": rowid, "reason": reason} for rowid, reason in self.bad_rows]


# -- reading SQLite ---------------------------------------------------------------------------

def tables(con: sqlite3.Connection) -> list[str]:
    rows = con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    return [name for (name,) in rows if not name.startswith("sqlite_")]


def columns(con: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in con.execute(f'PRAGMA table_info("{table}")')]


# The three names SQLite reads a table's row number by; a column of the same name (in any
# case) hides that name, so the first one no column takes is the row number.
ROW_NUMBER_NAMES = ("rowid", "_rowid_", "oid")


def row_number(con: sqlite3.Connection, path: Path, table: str) -> str:
    """The name that reads `table`'s own row number; BadInput when columns hide all three."""
    try:    # table_xinfo, unlike table_info, also lists generated and hidden columns
        taken = {row[1].lower() for row in con.execute(f'PRAGMA table_xinfo("{table}")')}
    except sqlite3.Error as exc:
        raise BadInput(f"{path}: cannot read table `{table}` ({exc})") from None
    for name in ROW_NUMBER_NAMES:
        if name not in taken:
            try:
                con.execute(f'SELECT {name} FROM "{table}" LIMIT 0')
            except sqlite3.Error:          # created WITHOUT ROWID: it has no row numbers
                raise BadInput(
                    f"{path}: table `{table}` has no row numbers (it was created WITHOUT ROWID), "
                    "by which an import names its rows; in a copy of the file, copy the table "
                    f"into one with them (CREATE TABLE t2 AS SELECT * FROM \"{table}\"; DROP "
                    f"TABLE \"{table}\"; ALTER TABLE t2 RENAME TO \"{table}\") and import the "
                    "copy") from None
            return name
    raise BadInput(f"{path}: table `{table}` has columns named rowid, _rowid_ and oid, which "
                   "hide the row numbers an import names rows by; rename one of those columns "
                   "in a copy of the file and import the copy")


def require_table(con: sqlite3.Connection, path: Path, table: str, expected: str) -> list[str]:
    """The table's columns; BadInput naming the tables found when it is missing."""
    found = tables(con)
    if table not in found and table.lower() not in {name.lower() for name in found}:
        # SQLite's names are not case sensitive: `HISTORY` is the table `history` (helper-63)
        listed = ", ".join(found) if found else "no tables"
        raise BadInput(f"{path}: found {listed}; expected a table `{table}` ({expected})")
    try:
        return columns(con, table)
    except sqlite3.Error as exc:     # a virtual table of a module this SQLite lacks, …
        raise BadInput(f"{path}: cannot read table `{table}` ({exc})") from None


def require_columns(path: Path, table: str, found: list[str], needed: tuple[str, ...],
                    expected: str) -> None:
    missing = [name for name in needed if name not in found]
    if missing:
        raise BadInput(f"{path}: table `{table}` has columns {', '.join(found)}; "
                       f"expected also {', '.join(missing)} ({expected})")


def count_rows(con: sqlite3.Connection, table: str) -> int | None:
    try:
        return con.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    except sqlite3.Error:
        return None


def read_rows(con: sqlite3.Connection, path: Path, table: str,
              names: list[str | None]) -> list[tuple]:
    """(rowid, *names) for every row in rowid order (a None name reads as NULL); text comes
    back as bytes so that one row that is not UTF-8 is a bad row, not a failed import. The
    rowid is SQLite's own row number even when a column is named `rowid`."""
    number = row_number(con, path, table)
    listed = ", ".join(f'"{name}"' if name else "NULL" for name in names)
    con.text_factory = bytes
    try:
        return con.execute(f'SELECT {number}, {listed} FROM "{table}" '
                           f"ORDER BY {number}").fetchall()
    except sqlite3.Error as exc:
        raise BadInput(f"{path}: cannot read table `{table}` ({exc})") from None
    finally:
        con.text_factory = str


def as_text(value: object, column: str) -> str | None:
    """A column's value as text (NULL is None); BadRow when it is a number or not UTF-8."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRow(f"{column} is not valid UTF-8") from None
    kind = "an integer" if isinstance(value, int) else "a real number"
    raise BadRow(f"{column} is {kind} ({value!r}), expected text")


# -- times ------------------------------------------------------------------------------------

def parse_sqlite_time(value: object, column: str) -> datetime | None:
    """A time as SQLite files hold it, as an aware UTC datetime; no offset means UTC.

    Accepts a space or `T` separator, an optional fraction and an optional offset
    (`Z`, `+00:00`, `-07:00`). NULL is None; anything else is a BadRow.
    """
    text = as_text(value, column)
    if text is None:
        return None
    match = _SQLITE_TIME.fullmatch(text.strip())
    if not match:
        raise BadRow(f"{column} {quoted(text[:40])} is not a time (expected e.g. 2025-03-01 09:00:00 "
                     "or 2025-03-01T09:00:00.123456+00:00)")
    date, clock, fraction, offset = match.groups()
    if offset and offset not in "Zz" and (int(offset[1:3]) > 23 or int(offset[-2:]) > 59):
        raise BadRow(f"{column} {quoted(text[:40])} is not a valid time (its offset {offset} is not "
                     "between -23:59 and +23:59)")
    micro = (fraction or "").ljust(6, "0")[:6]
    iso = f"{date}T{clock}.{micro}" + _offset(offset)
    try:
        local = datetime.fromisoformat(iso)
    except ValueError as exc:
        raise BadRow(f"{column} {quoted(text[:40])} is not a valid time ({exc})") from None
    try:
        return local.astimezone(timezone.utc)
    except OverflowError:       # 9999-12-31T23:59:59-23:59: a real local time, no UTC one
        raise BadRow(f"{column} {quoted(text[:40])} is not a valid time (in UTC it falls outside "
                     "years 1 to 9999)") from None


def _offset(offset: str | None) -> str:
    if not offset or offset in "Zz":
        return "+00:00"
    return offset if ":" in offset else f"{offset[:3]}:{offset[3:]}"


def rfc3339(moment: datetime) -> str:
    return format_time(moment)


def plural(count: int, one: str, many: str) -> str:
    """`1 row`, `3 rows`: summaries are read by people."""
    return f"{count} {one if count == 1 else many}"


# -- from mapped rows to events ----------------------------------------------------------------

def json_safe(value: object, column: str) -> object:
    """BadRow, in ingest's words, when the value cannot be stored as JSON that every command
    reads back: a number that is not finite (`1e999`), an integer beyond 64 bits, a string that
    is not valid Unicode (a lone surrogate escape), nesting deeper than MAX_DEPTH."""
    problem = value_problem(value)
    if problem is not None:
        raise too_deep(column) if problem.startswith("is nested") else BadRow(f"{column} {problem}")
    return value


def too_deep(column: str) -> BadRow:
    """The refusal of a value nested past what Python's json reads or writes, far past the
    entry contract's limit: the gate would refuse it in the same words."""
    return invalid_entry(f'field "{column}" is nested deeper than {MAX_DEPTH} levels')


def invalid_entry(problem: str) -> BadRow:
    return BadRow(f"the entry it maps to is not valid: {problem}")


class EventBook:
    """The states of the entries an import writes, and the drafts that lead to them.

    Each write and update goes through the write gate as `ingest` does (DESIGN §2.3): a new
    entry the gate holds is a `hold`; an update keeps a held entry held.
    """

    def __init__(self, actor: str, batch: str):
        self.actor, self.batch = actor, batch
        self.states: dict[str, dict] = {}
        self.held: dict[str, str] = {}
        self._suppression = gate.Suppression()    # a new store has erased no one
        self.judged: Judged | None = None           # the gate's answers for the import's texts

    def put(self, fields: dict, reason: str) -> dict:
        """A draft that writes or updates the entry `fields["id"]` to `fields`."""
        before = self.states.get(fields["id"])
        try:
            admitted = admit(before, fields, self._suppression, self.actor, reason=reason,
                             batch=self.batch, judged=self.judged)
        except InvalidEntry as problem:
            raise invalid_entry(str(problem)) from None
        if admitted.held:
            self.held[fields["id"]] = admitted.held
        if admitted.draft is None:        # the same state again: an event with no change
            admitted.draft = event_draft("update", fields["id"], self.actor, before=before,
                                         after=dict(before), reason=reason, batch=self.batch)
        self.states[fields["id"]] = admitted.draft["body"]["after"]
        return admitted.draft

    def retract(self, memory_id: str, reason: str) -> dict:
        before = self.states[memory_id]
        return self._draft("retract", before, {**before, "status": "retracted"}, reason)

    def _draft(self, op: str, before: dict | None, after: dict, reason: str) -> dict:
        self.states[after["id"]] = after
        return event_draft(op, after["id"], self.actor, before=before, after=after,
                           reason=reason, batch=self.batch)


class RowPlanner:
    """Maps the rows of a foreign table to event drafts, one row at a time: a row that cannot
    be mapped is a bad row (listed, never dropped silently); the drafts come out in time
    order, rowid breaking ties. Subclasses set `plan` and `book` and define `take`."""

    plan: Plan
    book: EventBook

    def __init__(self) -> None:
        self.timed: list[tuple[datetime, int, dict]] = []

    def read(self, raw: tuple):
        """The row `take` is given (the raw tuple unless a subclass parses it)."""
        return raw

    def take(self, row) -> None:
        raise NotImplementedError

    def preview(self, row) -> dict | None:
        """What the gate will read of the entry `row` maps to (value, source, scope, layer),
        so that the gate's text questions of the whole import are asked at once (on every
        core: detect/batch.py); None when the planner cannot say without taking the row."""
        return None

    def run(self, raws: list[tuple]) -> Plan:
        rows: list[tuple[tuple, object]] = []
        for raw in raws:
            try:
                rows.append((raw, self.read(raw)))
            except BadRow as bad:
                rows.append((raw, bad))
        previews = (self.preview(row) for _raw, row in rows if not isinstance(row, BadRow))
        self.book.judged = text_batch.judge(*gate.batch_texts(p for p in previews if p is not None))
        for raw, row in rows:
            if not isinstance(row, BadRow):
                try:
                    self.take(row)
                    continue
                except BadRow as refused:
                    row = refused
            self.plan.bad_rows.append((raw[0], str(row)))
        self.timed.sort(key=lambda item: (item[0], item[1]))
        for moment, _rowid, draft in self.timed:
            draft["at"] = rfc3339(moment)
        self.plan.drafts = [draft for _m, _r, draft in self.timed]
        self.plan.held = dict(self.book.held)
        return self.plan


def new_batch() -> str:
    """One batch id for every event of one import (it groups them, like any action's batch)."""
    return f"import-{uuid.uuid4().hex}"


def check_rows(path: Path, table: str, plan: Plan, skip_bad_rows: bool) -> None:
    """Refuse the import (BadInput, nothing written) when a row cannot be mapped and bad rows
    are not to be skipped, or when no row can: skipping them all would leave an empty store
    and a batch of no event, an import that only looks done."""
    if not plan.bad_rows or (skip_bad_rows and plan.drafts):
        return
    rowid, reason = plan.bad_rows[0]
    more = len(plan.bad_rows) - 1
    extra = f" (and {more} more bad row{'s' if more != 1 else ''})" if more else ""
    if skip_bad_rows:
        raise BadInput(f"{path}: no row of table `{table}` can be imported (rowid {rowid}: "
                       f"{reason}{extra}); nothing was written")
    raise BadInput(f"{path}: table `{table}` rowid {rowid} cannot be imported: {reason}{extra}; "
                   "nothing was written (pass --skip-bad-rows to import the other rows "
                   "and list the skipped ones)")


# -- building the store ------------------------------------------------------------------------

def check_target(target: Path) -> None:
    """Refuse a target that holds anything: an import writes a new store, never into one."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise BadInput(f"{target} exists and is not a directory; import writes a new store: "
                       "choose a new path")
    if target.is_dir() and any(target.iterdir()):
        raise BadInput(f"{target} already exists and is not empty; import writes a new store "
                       "and never into an existing one: choose a new path")
    resolved = target.resolve()
    if target.is_dir() and resolved in (Path.cwd().resolve(), resolved.parent):
        # The new store takes the target's place by a rename, which the working directory
        # (or /) refuses: "cannot write the new store at .: Device or resource busy" (helper-63)
        raise BadInput(f"{target} is the working directory; import writes a new store in its "
                       "own place: give a new path (e.g. ./store)")
    if not target.parent.is_dir():
        raise BadInput(f"{target.parent} does not exist; create it first or choose another path")


def build_store(target: Path, drafts: list[dict]) -> None:
    """Write `drafts` as the log of a new store at `target`, all or nothing.

    The store is built in a locked staging directory beside it (staging.py), loaded once to
    prove every line is sound, then renamed into place; on any failure, SIGTERM or SIGHUP the
    staging directory is removed, and what stopped imports left in the parent is swept first.
    """
    check_target(target)
    with stops_as_errors():
        sweep(target.parent)
        staging = stage(target)
        try:
            paths = init_store(staging.path)
            with LogWriter(paths) as writer:
                writer.append(drafts)
            Store(staging.path, warn=False).close()
            staging.finish(target)
        except OSError as exc:
            staging.discard()
            raise BadInput(f"cannot write the new store at {target}: {exc.strerror or exc}; "
                           "nothing was left behind") from None
        except BaseException:
            staging.discard()
            raise
    fsync_dir(target.parent)
