"""Importing a LangGraph `SqliteStore` file (DESIGN §10): one entry per row of table `store`.

LangGraph keeps only current values: a put replaces the row (created_at and updated_at both
become the time of the last put), a delete removes it. So each row is one `write` event at
its updated_at, and nothing earlier can be recovered.

Mapping: entity the namespace as stored (the dot-joined prefix), attribute the key, value the
parsed JSON (stored as a BLOB by every SqliteStore release, TEXT accepted), an observation from
`system:langgraph` (or the kind chosen), observed_at updated_at (else created_at), expires_at
kept. Ids are generated (`lg-` and a random uuid): a namespace may hold names, ids travel in
the log's envelopes, and an id must not be derived from them.
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..store import jsonsafe
from ..store.gate import fold
from ..store.errors import BadInput
from ..store.model import now_utc
from .common import (BadRow, EventBook, Plan, RowPlanner, as_text, build_store, check_target, columns,
                     json_safe, new_batch, parse_sqlite_time,
                     plural, read_rows, check_rows, require_columns, require_table, rfc3339, tables,
                     too_deep)
from .source import reading

ACTOR = "importer:langgraph"
SOURCE = "system:langgraph"
EXPECTED = "a LangGraph SqliteStore file"
TABLE = "store"
NEEDED = ("prefix", "key", "value", "created_at", "updated_at", "expires_at")
KINDS = ("observation", "claim", "inference")


def new_id() -> str:
    return f"lg-{uuid.uuid4()}"


def parse_value(raw: object) -> object:
    """The row's JSON value (BLOB or TEXT); BadRow when it is not UTF-8 JSON."""
    text = as_text(raw, "value")
    if text is None:
        raise BadRow("value is NULL")
    try:
        value = jsonsafe.loads(text)        # as ingest reads a line: a duplicated key refused
    except jsonsafe.TooManyDigits as exc:
        raise BadRow(f"value {exc}") from None
    except jsonsafe.NotStrict as exc:
        raise BadRow(f"value is not valid JSON for a store: it {_said(exc)}") from None
    except ValueError as exc:
        raise BadRow(f"value is not JSON ({exc})") from None
    except RecursionError:      # nested a thousand deep or more
        raise too_deep("value") from None
    return json_safe(value, "value")


def _said(exc: Exception) -> str:
    """NotStrict's words after "it": "holds a duplicate key 'x'", "starts with a byte-order mark"."""
    text = str(exc)
    return f"holds a {text}" if text.startswith("duplicate key") else text


@dataclass
class LangGraphPlan(Plan):
    expiring: int = 0
    expired: int = 0
    # (namespace, key) as written, by their folded form (gate.fold): two spellings of one
    # name (NFC and NFD `café`, another case or width) are two rows to LangGraph
    spellings: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)

    def spelled_otherwise(self) -> list[list[tuple[str, str]]]:
        """The groups of keys that read as one but are spelled otherwise, in row order."""
        return [group for group in self.spellings.values() if len(group) > 1]


class Planner(RowPlanner):
    """Maps `store` rows to write events in time order (updated_at, then rowid)."""

    def __init__(self, kind: str, batch: str, now: datetime):
        super().__init__()
        self.kind, self.now = kind, now
        self.book = EventBook(ACTOR, batch)
        self.plan = LangGraphPlan()

    def take(self, raw: tuple) -> None:
        rowid, prefix, key, value, created, updated, expires = raw
        prefix, key = as_text(prefix, "prefix"), as_text(key, "key")
        if not prefix or not key:
            raise BadRow(f"{'prefix' if not prefix else 'key'} is empty or NULL")
        moment = (parse_sqlite_time(updated, "updated_at")
                  or parse_sqlite_time(created, "created_at"))
        if moment is None:
            raise BadRow("no time (updated_at and created_at are NULL)")
        expires_at = parse_sqlite_time(expires, "expires_at")
        fields = {"id": new_id(), "entity": prefix, "attribute": key, "value": parse_value(value),
                  "kind": self.kind, "source": SOURCE, "observed_at": rfc3339(moment),
                  "expires_at": rfc3339(expires_at) if expires_at else None}
        draft = self.book.put(fields, f"LangGraph store rowid {rowid}")
        self.timed.append((moment, rowid, draft))
        self.plan.spellings.setdefault((fold(prefix), fold(key)), []).append((prefix, key))
        if expires_at is not None:
            self.plan.expiring += 1
            self.plan.expired += int(expires_at <= self.now)


def import_langgraph(sqlite: str | Path, store: str | Path, *, kind: str = "observation",
                     skip_bad_rows: bool = False) -> dict:
    """Read a SqliteStore file read-only and write a new store at `store`; return the summary.

    BadInput (nothing written) when the file has no usable `store` table, the target exists,
    `kind` is not allowed, or a row cannot be mapped and `skip_bad_rows` is false.
    """
    if kind not in KINDS:
        raise BadInput(f"--kind {kind!r} is not allowed: choose observation, claim or inference "
                       "(a summary must cite what it rests on, which LangGraph does not record)")
    source, target = Path(sqlite), Path(store)
    check_target(target)
    with reading(source, EXPECTED) as con:
        found = require_table(con, source, TABLE, EXPECTED)
        require_columns(source, TABLE, found, NEEDED, "langgraph-checkpoint-sqlite 2.0.9 and later")
        raws = read_rows(con, source, TABLE, list(NEEDED))
        vectors = vector_rows(con)
    batch = new_batch()
    plan = Planner(kind, batch, now_utc()).run(raws)
    check_rows(source, TABLE, plan, skip_bad_rows)
    build_store(target, plan.drafts)
    return summary(source, target, kind, plan, vectors, batch)


@dataclass
class Vectors:
    """What the file's `store_vectors` holds, as far as this SQLite can read it: a count it
    could not take is None and `unreadable` says why."""

    rows: int | None = None
    orphans: int | None = None      # rows whose key is no longer in `store`
    unreadable: str | None = None


def vector_rows(con) -> Vectors | None:
    """The file's vector index, or None without one. It is reported, never imported, so a
    table SQLite cannot read here (a vec0 virtual table without sqlite-vec, a collation the
    file names but does not define, a damaged b-tree) leaves its counts unknown and the
    import goes on."""
    if "store_vectors" not in tables(con):
        return None
    vectors = Vectors()
    try:
        vectors.rows = con.execute("SELECT count(*) FROM store_vectors").fetchone()[0]
        if not {"prefix", "key"} <= set(columns(con, "store_vectors")):
            vectors.orphans = 0
            return vectors
        vectors.orphans = con.execute(
            "SELECT count(*) FROM store_vectors v WHERE NOT EXISTS "
            "(SELECT 1 FROM store s WHERE s.prefix = v.prefix AND s.key = v.key)").fetchone()[0]
    except sqlite3.Error as exc:
        vectors.unreadable = str(exc)
    return vectors


def summary(source: Path, target: Path, kind: str, plan: LangGraphPlan,
            vectors: Vectors | None, batch: str) -> dict:
    doc = {
        "source": str(source), "store": str(target), "entries": len(plan.drafts), "kind": kind,
        "expiring": plan.expiring, "expired": plan.expired, "held": plan.held,
        "skipped_rows": plan.skipped_json(), "vector_table": vectors is not None,
        "vector_rows": vectors.rows if vectors else None,
        "orphan_vector_rows": vectors.orphans if vectors else None, "batch": batch,
    }
    doc["notes"] = notes(doc, plan, vectors)
    return doc


def notes(doc: dict, plan: LangGraphPlan, vectors: Vectors | None) -> list[str]:
    out = ["LangGraph keeps no history: only current values were imported; overwritten and "
           "deleted values are not recoverable, and created_at is the time of the last put, "
           "not of the first write"]
    if doc["entries"]:
        out.append(f"{plural(doc['entries'], 'entry has', 'entries have')} no subject: a "
                   "namespace does not say whose data a value is, and erasure by subject "
                   "matches the entity (the dot-joined namespace) only as a whole; erase them "
                   "by id")
    if plan.expired:
        out.append(f"{plural(plan.expired, 'entry', 'entries')} had already expired but "
                   f"{'was' if plan.expired == 1 else 'were'} still in the file (no TTL sweep "
                   "ran, so LangGraph still returns them): imported with expires_at kept, for "
                   "`expire --due`")
    if plan.held:
        out.append(f"{plural(len(plan.held), 'entry was', 'entries were')} held by the write "
                   "gate; `inspector held STORE` lists them with the reason")
    if (groups := plan.spelled_otherwise()):
        out.append(_spelled_otherwise_note(groups))
    if vectors is not None:
        out.append(_vector_note(vectors))
    if plan.bad_rows:
        out.append(f"{plural(len(plan.bad_rows), 'row', 'rows')} could not be mapped and "
                   f"{'was' if len(plan.bad_rows) == 1 else 'were'} skipped (listed in skipped_rows)")
    return out


def _spelled_otherwise_note(groups: list[list[tuple[str, str]]]) -> str:
    """The keys that read as one another (as actions warn of ids spelled otherwise): imported
    as the separate rows LangGraph keeps, each a key of its own, so an agent reading one
    spelling never sees the other's value. Drawn alike (NFC and NFD `café`), each is followed
    by the code points outside ASCII it holds, which tell them apart."""
    shown = "; ".join(" and ".join(_spelling(prefix, key) for prefix, key in group)
                      for group in groups[:5]) + ("; …" if len(groups) > 5 else "")
    count = sum(len(group) for group in groups)
    return (f"{count} keys read as another key but are spelled otherwise (case, width, Unicode "
            "form, spaces or invisible characters): imported as written, each its own "
            f"attribute, as LangGraph keeps them apart: {shown}; check which one the agent "
            "reads (`inspector beliefs STORE`)")


def _spelling(prefix: str, key: str) -> str:
    points = " ".join(f"U+{ord(c):04X}" for c in prefix + key if not c.isascii())
    return f"'{prefix}' · '{key}' ({points or 'ASCII only'})"


UNREACHED = "which the inspector's erasure does not reach"


def _vector_note(vectors: Vectors) -> str:
    if vectors.rows is None:
        return ("the file also has a vector index (store_vectors) that was not imported and "
                f"that SQLite cannot read here ({vectors.unreadable}): how many rows it holds, "
                f"and how many belong to keys no longer in `store` ({UNREACHED}), is unknown")
    note = (f"the file also has a vector index (store_vectors, "
            f"{plural(vectors.rows, 'row', 'rows')}) that was not imported")
    if vectors.orphans is None:
        note += (f"; SQLite cannot compare its keys with `store` here ({vectors.unreadable}), "
                 "so how many of them belong to keys no longer in `store` (embeddings of "
                 f"deleted values, {UNREACHED}) is unknown")
    elif vectors.orphans:
        verb = "belongs" if vectors.orphans == 1 else "belong"
        note += (f"; {vectors.orphans} of them {verb} to keys no longer in `store` (embeddings "
                 f"of deleted values that LangGraph left behind), {UNREACHED}")
    return note
