"""The support walk (macros.sql, `support_at`) run one part at a time, for the whole store.

`support_at` is one statement of twenty-two common table expressions. DuckDB keeps every part it
materializes until the statement ends: on a store of 658k entries and 1M citations the
statement peaked at 1.2 GB. Here each part becomes a temporary table of the same name, built
from the macro's own text (so there is one definition of the walk), and a part is dropped as
soon as no later part names it: the same rows, a third of the memory. Under a memory cap
(`lean.capped`) DuckDB also lets go of the view's blocks the first parts read.

The parts are the macro's `name [(columns)] [USING KEY (...)] AS [MATERIALIZED] (body)`, in
order; a part with columns is recursive. Their names must not be tables of the store
(checked), since a part's body names the parts before it as tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from . import macros, queries
from .engine import duckdb

_PART = re.compile(r"([a-z_]+)(\([^)]*\))?( USING KEY \([^)]*\))? AS (?:MATERIALIZED )?\((.*)\)",
                   re.S)
_STARTS = re.compile(r"^(?=[a-z_]+(?:\([^)]*\))?(?: USING KEY \([^)]*\))? AS (?:MATERIALIZED )?\()",
                     re.M)


@dataclass(frozen=True)
class Part:
    name: str
    sql: str                # CREATE OR REPLACE TEMP TABLE name AS ...
    drop_after: tuple[str, ...]     # the parts no later statement names (this one's included)


@cache
def parts() -> tuple[tuple[Part, ...], str]:
    """The parts of `support_at`, each with what to drop once it is built, and the statement
    that fills `support` from them."""
    text = queries.sql("macro_support_at")
    body = text[text.index("WITH RECURSIVE") + len("WITH RECURSIVE"):]
    final_at = body.rindex("\nSELECT ")
    ctes, final = body[:final_at], body[final_at + 1:]
    chunks = [_without_comments(c) for c in _STARTS.split(ctes)]
    found = []
    for chunk in filter(None, chunks):
        m = _PART.fullmatch(chunk.rstrip(","))
        if m is None:
            raise AssertionError(f"support_at: a part stepwise cannot read: {chunk[:60]!r}")
        name, columns, key, sql = m.groups()
        sql = sql.replace("state_at(tk, now)", "state_at($tk, $now)")
        if columns:
            sql = f"WITH RECURSIVE {name}{columns}{key or ''} AS ({sql}) SELECT * FROM {name}"
        found.append((name, f"CREATE OR REPLACE TEMP TABLE {name} AS {sql}"))
    if any(re.search(r"(?<!\$)\b(?:tk|now)\b", sql) for _, sql in found) or \
            re.search(r"\b(?:tk|now)\b", final):
        raise AssertionError("support_at: a parameter stepwise does not pass")
    # a part is dropped after the last part that names it; those the final statement names
    # (and the last part) stay until it has run
    last = {name: (len(found) if re.search(rf"\b{name}\b", final) else
                   max([i for i, (_, sql) in enumerate(found) if re.search(rf"\b{name}\b", sql)]))
            for name, _ in found}
    result = [Part(name, sql, tuple(n for n, at in last.items() if at == i))
              for i, (name, sql) in enumerate(found)]
    fill = "CREATE OR REPLACE TABLE support AS " + final
    return tuple(result), fill


def _without_comments(chunk: str) -> str:
    return "\n".join(line for line in chunk.strip().split("\n")
                     if not line.lstrip().startswith("--")).strip()


def materialize(con: duckdb.DuckDBPyConnection, tk, now: bool) -> None:
    """CREATE OR REPLACE TABLE support AS SELECT * FROM support_at(tk, now), a part at a time.
    Leaves no part behind, also when a statement fails."""
    steps, fill = parts()
    macros.sql(con, "macro_support_at")             # defines state_at, which the first part calls
    taken = _tables(con) & {p.name for p in steps}
    if taken:
        raise AssertionError(f"support_at: parts named like tables of the store: {sorted(taken)}")
    made: list[str] = []
    try:
        for part in steps:
            con.execute(part.sql, {"tk": tk, "now": now} if "$tk" in part.sql else None)
            made.append(part.name)
            for name in part.drop_after:
                con.execute(f"DROP TABLE temp.{name}")
                made.remove(name)
        con.execute(fill)
    except BaseException:
        try:                    # in a transaction a failure aborted, its rollback drops them
            _drop(con, made)
        except duckdb.Error:
            pass
        raise
    _drop(con, made)


def _drop(con: duckdb.DuckDBPyConnection, names: list[str]) -> None:
    for name in names:
        con.execute(f"DROP TABLE IF EXISTS temp.{name}")


def _tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {name for (name,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE NOT temporary "
        "UNION SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
