"""Importing a mem0 `history.db` (DESIGN §10): each memory one entry, each history row one event.

mem0 has written three layouts of its `history` table (tests/fixtures/importers/SCHEMAS.md):

  v0  mem0 0.0.2–0.0.9      prev_value, new_value, timestamp (naive UTC), lower-case events
  v1  mem0 0.0.10–0.1.99    old_memory, new_memory, created_at, updated_at (+ unused new_value)
  v2  mem0 0.1.100 and on   v1 without new_value, plus actor_id and role
                            (and a `messages` table from 2.0)

Mapping: ADD → write, UPDATE → update, DELETE → retract (the text stays until erased); the
event's time is coalesce(updated_at, created_at) (v0: timestamp), rows in time order, rowid for
ties. Entity `user:<actor_id>` with source and subject `user:<actor_id>` for role `user` with
an actor_id; role `assistant` is an inference by `agent:<actor_id>` (`agent:mem0` when the
actor_id is NULL); any other row is an observation from `system:mem0` with no subject.

Decisions where the history is silent:
- A row with no time (the DELETE rows of mem0 0.0.10–1.0.7) is dated at its memory's previous
  event, the earliest time it can have; one older than its memory's previous row is moved up
  to that row's time, so a memory's events keep mem0's row order. Both are listed.
- `actor_id` is the chat message's speaker name, not mem0's user_id, and for an assistant it
  names the agent: only role `user` makes the entity `user:<actor_id>`; others use `mem0`.
- Every entry is global (scope ""): history.db does not say which user, agent or run a
  memory belongs to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..store.errors import BadInput
from .common import (BadRow, EventBook, Plan, RowPlanner, as_text, build_store, check_target, count_rows,
                     new_batch, parse_sqlite_time, plural, quoted, read_rows, check_rows,
                     require_columns, require_table, rfc3339, tables)
from .source import reading

ACTOR = "importer:mem0"
EXPECTED = "a mem0 history.db"
TABLE = "history"
OPS = {"add": "write", "update": "update", "delete": "retract"}
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_SOURCE_ID = re.compile(r"[^/\s]+")


@dataclass(frozen=True)
class Layout:
    """Which columns of `history` hold the texts and times, by mem0 generation."""

    name: str
    releases: str
    old: str
    new: str
    created: str
    updated: str | None
    actor_id: str | None = None
    role: str | None = None

    @property
    def reads(self) -> list[str | None]:
        return ["memory_id", "event", self.old, self.new, self.created, self.updated,
                self.actor_id, self.role]


MODERN = ("old_memory", "new_memory", "created_at", "updated_at")
V0 = ("prev_value", "new_value", "timestamp")


def detect_layout(path: Path, found: list[str]) -> Layout:
    """The layout of `history` from its columns (mem0 writes no version marker)."""
    require_columns(path, TABLE, found, ("memory_id", "event"),
                    "every mem0 history.db has id, memory_id, event, is_deleted")
    if "old_memory" in found or "new_memory" in found:
        require_columns(path, TABLE, found, MODERN, "mem0 0.0.10 and later")
        if "actor_id" in found or "role" in found:
            return Layout("v2", "mem0 0.1.100 and later", *MODERN,
                          actor_id="actor_id" if "actor_id" in found else None,
                          role="role" if "role" in found else None)
        return Layout("v1", "mem0 0.0.10–0.1.99", *MODERN)
    if "prev_value" in found:
        require_columns(path, TABLE, found, V0, "mem0 0.0.2–0.0.9")
        return Layout("v0", "mem0 0.0.2–0.0.9", "prev_value", "new_value", "timestamp", None)
    raise BadInput(f"{path}: table `{TABLE}` has columns {', '.join(found)}; expected "
                   f"{', '.join(MODERN)} (mem0 0.0.10 and later) or {', '.join(V0)} "
                   "(mem0 0.0.2–0.0.9)")


@dataclass
class Row:
    rowid: int
    memory_id: str
    op: str            # write | update | retract
    text: str | None
    time: datetime | None
    actor_id: str | None
    role: str | None
    event: str


def read_row(raw: tuple, layout: Layout) -> Row:
    """One history row, checked on its own; BadRow says what is wrong with it."""
    rowid, memory_id, event, _old, new, created, updated, actor_id, role = raw
    memory_id, event = as_text(memory_id, "memory_id"), as_text(event, "event")
    if not memory_id or not _UUID.fullmatch(memory_id):
        raise BadRow("memory_id is NULL" if memory_id is None else
                     f"memory_id {quoted(memory_id[:40])} is not a uuid (mem0 writes uuid4 ids)")
    op = OPS.get((event or "").strip().lower())
    if op is None:
        raise BadRow(f"event {quoted(event)} is not ADD, UPDATE or DELETE")
    text = as_text(new, layout.new)
    time = parse_sqlite_time(updated, layout.updated) if layout.updated else None
    time = time or parse_sqlite_time(created, layout.created)
    if op != "retract" and text is None:
        raise BadRow(_no_text(event, layout, time))
    return Row(rowid, memory_id, op, text, time, _blank(as_text(actor_id, "actor_id")),
               _blank(as_text(role, "role")), event.strip().upper())


def _no_text(event: str, layout: Layout, time: datetime | None) -> str:
    why = f"{event.strip().upper()} row has no text ({layout.new} is NULL)"
    if time is None:
        why += (" and no time: what mem0 0.1.100 and later leaves of a mem0 0.0.x file it "
                "upgraded (every text and time is lost)")
    return why


def _blank(text: str | None) -> str | None:
    return text.strip() or None if text is not None else None


def who(row: Row) -> dict:
    """Entity, kind, source and subject of a row, by its role and actor_id."""
    role, actor = (row.role or "").lower(), row.actor_id
    if role in ("user", "assistant") and actor and not _SOURCE_ID.fullmatch(actor):
        raise BadRow(f"actor_id {quoted(actor[:40])} holds a space or '/', so it cannot name a source")
    if role == "user" and actor:
        name = f"user:{actor}"
        return {"entity": name, "kind": "observation", "source": name, "subject": name}
    if role == "assistant":
        return {"entity": "mem0", "kind": "inference", "source": f"agent:{actor or 'mem0'}",
                "subject": None}
    return {"entity": "mem0", "kind": "observation", "source": "system:mem0", "subject": None}


@dataclass
class Mem0Plan(Plan):
    untimed: list[int] = field(default_factory=list)      # rowids dated by the previous event
    reordered: list[int] = field(default_factory=list)    # rowids moved up to keep row order
    agent_fallback: set[str] = field(default_factory=set)  # memory ids by agent:mem0


class Planner(RowPlanner):
    """Maps history rows, in rowid order, to events; a memory's rows depend on its earlier ones."""

    def __init__(self, layout: Layout, batch: str):
        super().__init__()
        self.layout = layout
        self.book = EventBook(ACTOR, batch)
        self.plan = Mem0Plan()
        self.last: dict[str, datetime] = {}         # memory id -> time of its last event

    def read(self, raw: tuple) -> Row:
        return read_row(raw, self.layout)

    def preview(self, row: Row) -> dict | None:
        if row.op == "retract":
            return None
        try:
            source = who(row)["source"]
        except BadRow:
            return None          # take() refuses the row in its own words
        return {"value": row.text, "source": source, "scope": "", "layer": None}

    def take(self, row: Row) -> None:
        before = self.book.states.get(row.memory_id)
        self._check_sequence(row, before)
        moment, note = self._when(row)
        reason = f"mem0 history rowid {row.rowid} ({row.event}){note}"
        if row.op == "retract":
            draft = self.book.retract(row.memory_id, reason)
        else:
            fields = {"id": row.memory_id, "attribute": f"memory:{row.memory_id}",
                      "value": row.text, "observed_at": rfc3339(moment), **who(row)}
            draft = self.book.put(fields, reason)
            if fields["source"] == "agent:mem0":
                self.plan.agent_fallback.add(row.memory_id)
        self._record(row, moment, note)
        self.timed.append((moment, row.rowid, draft))

    def _check_sequence(self, row: Row, before: dict | None) -> None:
        if row.op == "write" and before is not None:
            raise BadRow(f"ADD for memory {row.memory_id}, which an earlier row already added")
        if row.op != "write" and before is None:
            raise BadRow(f"{row.event} of memory {row.memory_id} with no imported ADD before it")
        if before is not None and before["status"] == "retracted":
            raise BadRow(f"{row.event} of memory {row.memory_id} after its DELETE")

    def _when(self, row: Row) -> tuple[datetime, str]:
        """The row's time and, when it had to be decided here, why."""
        last = self.last.get(row.memory_id)
        if row.time is None:
            if last is None:
                raise BadRow("no time (created_at and updated_at are NULL) and no earlier row "
                              "of its memory to date it by")
            return last, "; no time in the source: dated at the memory's previous event"
        if last is not None and row.time < last:
            return last, (f"; its time {rfc3339(row.time)} is before the memory's previous row: "
                          "dated at that row's time to keep mem0's row order")
        return row.time, ""

    def _record(self, row: Row, moment: datetime, note: str) -> None:
        self.last[row.memory_id] = moment
        if row.time is None:
            self.plan.untimed.append(row.rowid)
        elif note:
            self.plan.reordered.append(row.rowid)


def import_mem0(history_db: str | Path, store: str | Path, *, skip_bad_rows: bool = False) -> dict:
    """Read `history_db` read-only and write a new store at `store`; return the summary.

    BadInput (nothing written) when the file is not a mem0 history.db, the target exists, or
    a row cannot be mapped and `skip_bad_rows` is false.
    """
    source, target = Path(history_db), Path(store)
    check_target(target)
    with reading(source, EXPECTED) as con:
        layout = detect_layout(source, require_table(con, source, TABLE, EXPECTED))
        raws = read_rows(con, source, TABLE, layout.reads)
        messages = "messages" in tables(con), count_rows(con, "messages")
    batch = new_batch()
    planner = Planner(layout, batch)
    plan = planner.run(raws)
    check_rows(source, TABLE, plan, skip_bad_rows)
    build_store(target, plan.drafts)
    return summary(source, target, layout, planner, messages, batch)


def summary(source: Path, target: Path, layout: Layout, planner: Planner,
            messages: tuple[bool, int | None], batch: str) -> dict:
    plan, states = planner.plan, planner.book.states
    kinds: dict[str, int] = {}
    for state in states.values():
        kinds[state["kind"]] = kinds.get(state["kind"], 0) + 1
    doc = {
        "source": str(source), "store": str(target), "layout": layout.name,
        "written_by": layout.releases, "memories": len(states), "events": len(plan.drafts),
        "deleted": sum(1 for s in states.values() if s["status"] == "retracted"),
        "without_subject": sum(1 for s in states.values() if s["subject"] is None),
        "by_kind": dict(sorted(kinds.items())), "held": plan.held,
        "skipped_rows": plan.skipped_json(), "untimed_rows": plan.untimed,
        "reordered_rows": plan.reordered, "messages_table": messages[0],
        "messages_rows": messages[1] if messages[0] else None, "batch": batch,
    }
    doc["notes"] = notes(doc, plan)
    return doc


def notes(doc: dict, plan: Mem0Plan) -> list[str]:
    out = []
    if doc["without_subject"]:
        out.append(f"{doc['without_subject']} of {doc['memories']} memories have no subject: "
                   "mem0's history records at most the speaker's name (actor_id), never the "
                   "user_id a memory belongs to, so erasure by subject will not find them; "
                   "erase them by id")
    if plan.agent_fallback:
        count = len(plan.agent_fallback)
        out.append(f"{plural(count, 'assistant memory has', 'assistant memories have')} no "
                   "actor_id: their source is agent:mem0")
    if plan.untimed:
        out.append(f"{plural(len(plan.untimed), 'row', 'rows')} had no time (DELETE rows of "
                   "mem0 0.0.10–1.0.7 carry none): each was dated at its memory's previous "
                   f"event; the real time is unknown and may be later (rowid {_ids(plan.untimed)})")
    if plan.reordered:
        out.append(f"{plural(len(plan.reordered), 'row', 'rows')} had a time before their "
                   "memory's previous row: dated at that row's time to keep mem0's row order "
                   f"(rowid {_ids(plan.reordered)})")
    if plan.held:
        out.append(f"{plural(len(plan.held), 'memory was', 'memories were')} held by the write "
                   "gate; `inspector held STORE` lists them with the reason")
    if doc["messages_table"]:
        rows = doc["messages_rows"]
        held = f" ({plural(rows, 'row', 'rows')} now)" if rows is not None else ""
        out.append(f"the file also has a `messages` table{held}: raw conversation text mem0 2.x "
                   "keeps for extraction; it was not imported, so the inspector's erasure does "
                   "not reach it: delete it in mem0 itself")
    if plan.bad_rows:
        out.append(f"{plural(len(plan.bad_rows), 'row', 'rows')} could not be mapped and "
                   f"{'was' if len(plan.bad_rows) == 1 else 'were'} skipped (listed in skipped_rows)")
    out.append('every entry is global (scope ""): history.db does not say which user, agent '
               "or run a memory belongs to")
    return out


def _ids(rowids: list[int]) -> str:
    return ", ".join(map(str, rowids))
