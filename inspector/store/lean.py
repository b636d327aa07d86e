"""A focused read (`show`, `held`, `lineage`, …) with DuckDB's memory capped, so that the blocks
of the view it reads are let go once read instead of kept for the life of the process.

DuckDB keeps every block it reads from the view file cached, up to its memory limit (80% of
the machine's memory by default). A focused read needs a few rows, but DuckDB reads whole
blocks of each column those rows lie in: `show` of an entry with 5,000 events spread over a
1.3 GB view read most of the `value` column and held 780 MB; capped at 128 MB it holds 240 MB
and takes 0.1 s longer (blocks read again come from the page cache).

A cache that is over the cap gives blocks back; working memory cannot (the store never spills
to disk: a spill file would hold personal data no erasure knows about). A statement whose own
working memory needs more than the cap (a walk over a very long chain) fails with DuckDB's
OutOfMemoryException; the read then runs again without the cap. The cap costs time in that
case, never an answer: the read functions change no table the caller sees (those that
judge a key do it in a transaction they roll back).
"""

from __future__ import annotations

from typing import Callable, TypeVar

from .engine import duckdb

CAP = 128 << 20
T = TypeVar("T")


def capped(con: duckdb.DuckDBPyConnection, read: Callable[[], T], cap: int | None = None) -> T:
    """read(), with DuckDB's memory limit at `cap` bytes; read() again without it when a
    statement needed more (`cap`: CAP). `read` must be a read: running it twice gives one
    answer."""
    try:
        con.execute(f"SET memory_limit = '{int(CAP if cap is None else cap)}B'")
    except duckdb.Error:        # the tables this connection already holds are over the cap
        return read()
    try:
        return read()
    except duckdb.OutOfMemoryException:
        pass
    finally:
        con.execute("RESET memory_limit")
    return read()
