"""The log as a list of events (`audit --log`): who did what, when, to which entry, in which
batch and why — filtered by time and by entry, straight from the loaded versions, oldest
first. The TUI's Audit screen can filter with the same function."""

from __future__ import annotations

from datetime import datetime

import duckdb

from .errors import BadInput
from .model import format_time
from .queries import sql


def events(con: duckdb.DuckDBPyConnection, since: datetime | None = None,
           until: datetime | None = None, memory_id: str | None = None) -> list[dict]:
    """Events with since <= at <= until about `memory_id` (None: no filter), in seq order."""
    if since is not None and until is not None and since > until:
        raise BadInput(f"--since {format_time(since)} is after --until {format_time(until)}; "
                       "give the earlier time as --since")
    if memory_id is not None and not con.execute(sql("audit_log_known"), {"id": memory_id}).fetchone()[0]:
        raise BadInput(f"{memory_id}: no event in the log names it; `inspector audit STORE --log` "
                       "lists every event")
    rows = con.execute(sql("audit_log"), {"since": since, "until": until, "memory": memory_id})
    return [{"seq": seq, "at": format_time(at), "actor": actor, "op": op, "memory_id": memory,
             "batch": batch, "reason": reason}
            for seq, at, actor, op, memory, batch, reason in rows.fetchall()]


def document(con: duckdb.DuckDBPyConnection, since: datetime | None = None,
             until: datetime | None = None, memory_id: str | None = None) -> dict:
    """The `audit --log --json` document: the events and the filters that chose them."""
    return {"events": events(con, since, until, memory_id), "since": format_time(since),
            "until": format_time(until), "memory_id": memory_id}
