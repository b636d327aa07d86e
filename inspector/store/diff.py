"""What changed between two times (DESIGN §5a): the belief tables at T1 and T2 compared row by
row, each change with its causes — the events between the two times on the entries involved
and on what they rest on, in seq order.

Both tables come from the belief rule in SQL (`judged` as of each time, then `beliefs_in`),
for the keys that can differ only (an event between the times on an entry of the key or on
what it rests on, or an observed or valid time between them); the comparison and the causes
are one query, whose rows come back as JSON text. Everything runs in a transaction that is rolled
back, so a view already materialized on the connection (`judged`, `beliefs`) is left as it
was. Call it with the store's lock held when other threads may rebuild the view (the TUI does
its DuckDB work that way), on the store's connection or one of its cursors.
"""

from __future__ import annotations

import json
from datetime import datetime

from .engine import duckdb
from . import macros
from .beliefs import RULE_NOTE, at_head
from .errors import BadInput
from .model import format_time
from .queries import sql

# A change lists at most MAX_CAUSES events, found at most MAX_STEPS justification steps above
# the entries involved (nearest first); `causes_truncated` says when it stops short. Without a
# bound, n rolling summaries written in one window list n(n+1)/2 causes (2,000 of them: 32 s,
# 6 GB, 440 MB of JSON).
MAX_CAUSES = 100
MAX_STEPS = 16
TRUNCATED_CAUSES = f"a change lists at most {MAX_CAUSES} events, {MAX_STEPS} steps up"


def changes(con: duckdb.DuckDBPyConnection, t1: datetime, t2: datetime,
            context: str | None = None) -> list[dict]:
    """Rows of the belief table (store-wide, or `context`'s) whose belief, value or markers
    differ between t1 and t2 (each the knowledge and the valid time), ordered by key and
    scope. Each: scope, entity, attribute, before/after ({"memory_id", "value"} or None),
    markers_before, markers_after, causes (events with t1 < at <= t2, in seq order)."""
    if t1 > t2:
        raise BadInput(f"--from {format_time(t1)} is after --to {format_time(t2)}; "
                       "give the earlier time as --from")
    con.execute("BEGIN")
    try:
        times = {"t1": t1, "t2": t2}
        con.execute(sql("diff_tables_create"))
        con.execute(macros.sql(con, "diff_edges_create"),
                    {**times, "now1": at_head(con, t1), "now2": at_head(con, t2)})
        con.execute(sql("diff_reach_create"), times)
        con.execute(sql("diff_keys_create"), times)
        for side, moment in (("before", t1), ("after", t2)):
            con.execute(macros.sql(con, "diff_judged"), {"t": moment, "now": at_head(con, moment)})
            con.execute(sql("diff_side_fill"), {"side": side, "t": moment, "ctx": context})
        rows = con.execute(sql("diff_changes"), {**times, "max_causes": MAX_CAUSES,
                                                 "max_steps": MAX_STEPS}).fetchall()
    finally:
        con.execute("ROLLBACK")
    return [json.loads(text) for (text,) in rows]


def document(con: duckdb.DuckDBPyConnection, t1: datetime, t2: datetime,
             context: str | None = None) -> dict:
    """The `diff --json` document (DESIGN §8), with the entries erased in the window: an
    erasure takes an entry out of every time, so a diff across one showed "0 belief changes"
    and nothing more, though the agent no longer believed what it held (helper-78)."""
    found = changes(con, t1, t2, context)
    n, certificates = erased(con, t1, t2)
    return {"from": format_time(t1), "to": format_time(t2), "context": context,
            "changes": found, "erased": n, "certificates": certificates, "rule": RULE_NOTE}


def erased(con: duckdb.DuckDBPyConnection, t1: datetime, t2: datetime) -> tuple[int, list[str]]:
    """How many entries were erased in the window (t1, t2], and their certificates."""
    n, certificates = con.execute(sql("diff_erased"), {"t1": t1, "t2": t2}).fetchone()
    return n, certificates
