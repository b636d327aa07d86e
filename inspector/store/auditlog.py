"""The log as a list of events (`audit --log`): who did what, when, to which entry, in which
batch and why — filtered by time and by entry, straight from the loaded versions, oldest
first. The TUI's Audit screen can filter with the same function."""

from __future__ import annotations

from datetime import datetime
from typing import Iterator

from .engine import duckdb
from .errors import BadInput
from .model import format_time, id_named
from .queries import sql

PAGE = 5000


def events(con: duckdb.DuckDBPyConnection, since: datetime | None = None,
           until: datetime | None = None, memory_id: str | None = None) -> list[dict]:
    """Events with since <= at <= until about `memory_id` (None: no filter), in seq order."""
    return list(each_event(con, since, until, memory_id))


def each_event(con: duckdb.DuckDBPyConnection, since: datetime | None = None,
               until: datetime | None = None, memory_id: str | None = None) -> Iterator[dict]:
    """events(), fetched a page at a time (a million of them as dicts held over a GB); the
    filters are checked here, before the first event is asked for. Nothing else may run on
    `con` until the events are all read."""
    if since is not None and until is not None and since > until:
        raise BadInput(f"--since {format_time(since)} is after --until {format_time(until)}; "
                       "give the earlier time as --since")
    if memory_id is not None and not con.execute(sql("audit_log_known"), {"id": memory_id}).fetchone()[0]:
        raise BadInput(f"{id_named(memory_id)}: no event in the log names it; `inspector audit STORE --log` "
                       "lists every event")
    rows = con.execute(sql("audit_log"), {"since": since, "until": until, "memory": memory_id})
    return _each(rows)


def _each(rows) -> Iterator[dict]:
    while page := rows.fetchmany(PAGE):
        for seq, at, actor, op, memory, batch, reason in page:
            yield {"seq": seq, "at": format_time(at), "actor": actor, "op": op,
                   "memory_id": memory, "batch": batch, "reason": reason}


def filters(since: datetime | None, until: datetime | None, memory_id: str | None) -> dict:
    """The rest of the `audit --log --json` document: the filters that chose the events."""
    return {"since": format_time(since), "until": format_time(until), "memory_id": memory_id}


def document(con: duckdb.DuckDBPyConnection, since: datetime | None = None,
             until: datetime | None = None, memory_id: str | None = None) -> dict:
    """The `audit --log --json` document: the events and the filters that chose them."""
    return {"events": events(con, since, until, memory_id), **filters(since, until, memory_id)}
