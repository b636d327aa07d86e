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
OutOfMemoryException; the read then runs again without the cap (once the limit is lifted:
`lift`). The cap costs time in that case, never an answer: the read functions change no
table the caller sees (those that judge a key do it in a transaction they roll back).
"""

from __future__ import annotations

import time
from typing import Callable, TypeVar

from .engine import duckdb
from .queries import sql

CAP = 128 << 20
# A whole-store command's judging (beliefs.in_ranges: the support walk, then a range of keys at
# a time) needs more working memory than a focused read. The process holds 100-200 MB beside
# DuckDB's capped memory, so the cap decides whether such a command stays under 500 MB. On the
# 5M-event wide-long bench store (`conflicts --json`, as of a time inside its history): 448 MB
# peaked at 625 MB, 320 MB at 504-525 MB. At 256 MB, 12-18 of its 68 ranges need more: run
# again uncapped they took it to 700+ MB; built again a half at a time (in_ranges) 431 MB, in
# 98-111 s against 81 s at 320 MB. At 1M, where every range fits, 256 MB takes 348 MB in
# 18.4-18.8 s against 400 MB in 17.0-18.0 s.
WHOLE_CAP = 256 << 20
# A focused read that needs more than CAP is tried once more at this cap before it runs
# uncapped: judging a key at the end of a rolling summary chain 7,564 long (helper-82's
# generator, 1M events) needs 128-256 MB: `show` of it, read at 128 MB then again uncapped,
# held 943 MB; at 128 MB then at this cap, 346 MB, in the same time (17 s at load 27).
RETRY_CAP = WHOLE_CAP
T = TypeVar("T")


def capped(con: duckdb.DuckDBPyConnection, read: Callable[[], T], cap: int | None = None) -> T:
    """read(), with DuckDB's memory limit at `cap` bytes; read() again without it when a
    statement needed more. `cap` None: a focused read's CAP, and before it runs uncapped,
    once more at RETRY_CAP. `read` must be a read: running it again gives the same answer.
    The limit is put back to DuckDB's default, which is what a store's connection runs with
    (it sets none)."""
    for step in ((CAP, RETRY_CAP) if cap is None else (cap,)):
        if not limit(con, step):
            break
        try:
            answer = read()
        except duckdb.OutOfMemoryException:
            lift(con)
            continue
        except BaseException:
            lift(con)
            raise
        lift(con)
        return answer
    return read()


def fits(con: duckdb.DuckDBPyConnection, build: Callable[[], None], cap: int) -> bool:
    """build(), in a transaction of its own, with DuckDB's memory limit at `cap` bytes; False
    when a statement needed more: the transaction is rolled back (nothing build() wrote
    stays) and the limit lifted, for the caller to build it in smaller pieces. When the cap
    cannot be set (the tables this connection holds are over it), build() runs uncapped,
    and True. The connection must not be in a transaction.
    The limit is lifted before the commit: a commit that wrote enough makes DuckDB checkpoint
    its in-memory database, and a checkpoint that fails for memory is fatal to the connection
    (it was, building the TUI's belief table capped beside its screens' rows)."""
    capped_now = limit(con, cap)
    con.execute("BEGIN")
    try:
        build()
        if capped_now:
            capped_now = False
            lift(con)
        con.execute("COMMIT")
    except BaseException as error:
        con.execute("ROLLBACK")
        if not capped_now:
            raise
        lift(con)
        if isinstance(error, duckdb.OutOfMemoryException):
            return False
        raise
    return True


def built(con: duckdb.DuckDBPyConnection, build: Callable[[], None], cap: int) -> None:
    """build(), which writes tables, under the cap as fits() runs it; if it needed more, again
    without the cap (as capped() does a read)."""
    if not fits(con, build, cap):
        build()


# What DuckDB may hold beyond its own tables and working memory while `let_go` evicts.
LET_GO_SLACK = 64 << 20


def let_go(con: duckdb.DuckDBPyConnection) -> None:
    """Let go of DuckDB's cache of the blocks of attached database files (a view file just
    written, which it keeps up to its memory limit): the limit is set just over what it holds
    otherwise, which evicts them, then put back. Best effort: a limit it cannot meet is
    refused, and nothing is let go."""
    held = con.execute(sql("memory_not_cached")).fetchone()[0]
    if limit(con, held + LET_GO_SLACK):
        lift(con)


def limit(con: duckdb.DuckDBPyConnection, cap: int) -> bool:
    """Cap DuckDB's memory at `cap` bytes (until `lift`); False when it cannot be (the tables
    this connection holds are over it), and nothing is capped."""
    try:
        con.execute(f"SET memory_limit = '{int(cap)}B'")
    except duckdb.Error:
        return False
    return True


LIFT_TRIES = 100


def lift(con: duckdb.DuckDBPyConnection) -> None:
    """RESET memory_limit (what a store's connection runs with). The statement needs a few KB of its own, which a read that just
    failed for memory may not have given back yet (DuckDB's threads free it as they stop;
    an outside review saw the reset fail in 2 to 16 of 40 runs): it is tried again, 10 ms
    apart, for up to a second."""
    for attempt in range(LIFT_TRIES):
        try:
            con.execute("RESET memory_limit")
            return
        except duckdb.OutOfMemoryException:
            if attempt == LIFT_TRIES - 1:
                raise
            time.sleep(0.01)
