"""One entry as `show` presents it, and the held queue (DESIGN §8)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from .engine import duckdb
from . import beliefs, jsonsafe, lean, lineage
from .beliefs import Moment, ViewSpec
from .errors import BadInput
from .model import STATUSES, format_time, id_named
from .queries import sql


def state(con: duckdb.DuckDBPyConnection, memory_id: str) -> dict | None:
    """The stored state of a current entry, verbatim, or None when it is not loaded."""
    row = con.execute(sql("entry_state"), {"id": memory_id}).fetchone()
    if row is None:
        return None
    if row[0] is None:     # its last body was replaced by an erasure whose erase event is gone
        return {"id": memory_id, "status": row[4]}
    return jsonsafe.loads_stored(row[0])


def malformed(con: duckdb.DuckDBPyConnection, memory_id: str) -> str | None:
    """Why an entry's current state breaks the entry contract, or None."""
    row = con.execute(sql("entry_malformed"), {"id": memory_id}).fetchone()
    return row[0] if row else None


def require(con: duckdb.DuckDBPyConnection, memory_id: str, where: str) -> dict:
    found = state(con, memory_id)
    if found is None:
        raise BadInput(f"{id_named(memory_id)}: not found in {where}; `inspector beliefs` lists what is there")
    return found


def events(con: duckdb.DuckDBPyConnection, memory_id: str) -> list[dict]:
    rows = con.execute(sql("entry_events"), {"id": memory_id}).fetchall()
    return [{"seq": seq, "at": format_time(at), "actor": actor, "op": op, "reason": reason,
             "batch": batch, "status": status, "value": beliefs.json_value(value),
             "redacted": redacted}
            for seq, at, actor, op, reason, batch, status, value, redacted in rows]


@contextmanager
def judged_now(con: duckdb.DuckDBPyConnection, key: tuple[str, str],
               spec: ViewSpec | None = None) -> Iterator[ViewSpec]:
    """Inside the block `judged` holds the entries of `key` as of now, or of spec's knowledge
    time (what `show` and rivals read); afterwards the tables are as they were. The tables
    are con's own (TEMP, gone at the block's end): a thread reading beside another that
    rebuilds or patches the shared ones needs no lock, and waits for none."""
    spec = spec or ViewSpec(None, Moment.resolve())
    con.execute("BEGIN")
    try:
        beliefs.judge_keys(con, spec.moment.tk, [key], private=True)
        yield spec
    finally:
        con.execute("ROLLBACK")


def judgement(con: duckdb.DuckDBPyConnection, spec: ViewSpec, entry: dict, context: str) -> dict:
    """How the belief rule judges an entry's key in `context`: every entry about it with its
    reason, this entry's reason and effective authority, the winner, and why it wins."""
    rows = beliefs.rivals(con, spec, entry["entity"], entry["attribute"], context)
    own = next((r for r in rows if r["memory_id"] == entry["id"]), None)
    winner = next((r for r in rows if r["reason"] == "belief"), None)
    return {"rows": rows, "reason": own["reason"] if own else None,
            "authority": own["authority"] if own else None,
            "belief": winner["memory_id"] if winner else None, "why": beliefs.why(rows)}


def show(con: duckdb.DuckDBPyConnection, memory_id: str, where: str) -> dict:
    """DESIGN §8 `show`: the entry, its events, its rivals in its own scope now, lineage."""
    entry = require(con, memory_id, where)
    found = lineage.lineage(con, memory_id)
    doc = {"entry": entry, "events": events(con, memory_id), "rivals": [],
           "ancestors": found.ancestors, "descendants": found.descendants,
           "independent_sources": found.independent_sources, "belief": None, "reason": None}
    problem = malformed(con, memory_id)
    if problem:
        takes = ("quarantine, retract or erase it" if entry.get("status") in STATUSES
                 else "only erase takes it: no other action could put its status back")
        doc.update(malformed=problem, reason="malformed",
                   why=f"malformed: {problem}; never a belief ({takes})")
    elif entry.get("status") != "erased":
        with judged_now(con, (entry["entity"], entry["attribute"])) as spec:
            judged = judgement(con, spec, entry, entry.get("scope") or "")
        doc["rivals"] = [{"memory_id": r["memory_id"], "value": beliefs.json_value(r["value"]),
                          "reason": r["reason"]} for r in judged["rows"] if r["memory_id"] != memory_id]
        doc.update(belief=judged["belief"], reason=judged["reason"], why=judged["why"])
    doc["hidden"] = found.hidden        # cited entries --scope leaves out, as lineage says
    return doc


# The held queue is read a page at a time, with DuckDB's memory capped while it sorts and pages
# it (so that it lets go of the view's blocks it reads). At 5M events with 181k held entries,
# a list of the whole queue held 2.5 GB; paged, `held --json` peaked at 314 MB capped at 192 MB,
# and 128 MB was too little for its sort.
HELD_PAGE = 1000
HELD_CAP = 256 << 20


def each_held(con: duckdb.DuckDBPyConnection, cap: int | None = HELD_CAP) -> Iterator[dict]:
    """The held queue, oldest hold first, a page at a time. Nothing else may run on `con`
    until the iteration ends. A page the cap is too small for is read again uncapped, from
    after the last entry given (no entry is given twice or missed)."""
    after = -1
    limited = cap is not None and lean.limit(con, cap)
    ran = False
    try:
        while True:
            try:
                if not ran:
                    con.execute(sql("held_entries"), {"after": after})
                    ran = True
                page = con.fetchmany(HELD_PAGE)
            except duckdb.OutOfMemoryException:
                if not limited:
                    raise
                lean.lift(con)
                limited, ran = False, False
                continue
            if not page:
                return
            for seq, state in page:
                after = seq
                yield jsonsafe.loads_stored(state)
    finally:
        if limited:
            lean.lift(con)
