"""A Store's DuckDB connection before it reads a store: the settings, the empty tables, the
views of the whole store (or, with --scope, through its filter) and the belief macros; and
preparing one ahead, in a thread, while the command line is still being parsed."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager, suppress
from typing import Iterator

from .engine import duckdb
from . import macros
from .queries import sql

EMPTY_BASE = ("base_versions_empty", "base_entries_empty", "base_edges_empty",
              "base_known_ids_empty", "base_version_keys_empty")
OVERLAYS = ("overlay_versions", "overlay_entries", "overlay_edges", "overlay_known_ids",
            "overlay_version_keys")
WHOLE = ("whole_entries", "whole_versions", "whole_edges", "whole_version_keys")
SCOPED = ("scoped_entries", "scoped_versions", "scoped_edges", "scoped_version_keys")
SETUP = ("versions_create", "entries_create", "edges_create", "known_ids_create",
         "version_keys_create",
         "touched_create", "scope_create", "cites_create", "cites_seq_create", "base_attach_empty",
         *EMPTY_BASE, *OVERLAYS)
SETTINGS = ("set_utc", "no_progress_bar", "no_zstd")


def attach_empty_base(con: duckdb.DuckDBPyConnection) -> None:
    """An empty in-memory `base` in place of a view file (none current, or one let go of):
    the overlays then answer from the rows read since alone. `base` must be detached."""
    for name in ("base_attach_empty", *EMPTY_BASE):
        con.execute(sql(name))
CONNECTION = {
    "threads": os.cpu_count() or 2,
    # Never spill to disk: a spill file (default ./.tmp) would hold personal data that no
    # erasure knows about.
    "temp_directory": "",
    # A table a query names that is not there (dropped by a reload under a reader) is an
    # error, never a Python object of that name in the caller's frame (DuckDB's replacement
    # scans: a TUI worker read the module `entries` as the table).
    "python_enable_replacements": False,
}


def prepare() -> duckdb.DuckDBPyConnection:
    """A connection with the settings, the empty tables, the views of the whole store and the
    macros: everything a Store's connection holds before it reads a store."""
    con = duckdb.connect(":memory:", config=CONNECTION)
    for name in (*SETTINGS, *SETUP, *WHOLE):
        con.execute(sql(name))
    macros.define(con)
    return con


_ahead: list = []       # [thread, [connection or exception]] while one is prepared ahead


def prepare_ahead() -> None:
    """Prepare the next Store's connection in a thread: about 55 ms of DuckDB binding that
    needs no store, done while the command line imports Typer and parses its arguments (DuckDB
    releases the GIL for part of it). Called once by the CLI's entry point."""
    if _ahead:
        return
    made: list = []

    def work() -> None:
        try:
            made.append(prepare())
        except BaseException as error:      # taken up, and raised again, by prepared()
            made.append(error)

    thread = threading.Thread(target=work, name="inspector-prepare")
    _ahead.extend((thread, made))
    thread.start()


def prepared(scope: str | None) -> duckdb.DuckDBPyConnection:
    """The connection prepared ahead (once), else a new one; with `scope`, its views read
    through the scope's filter."""
    if _ahead:
        thread, made = _ahead
        _ahead.clear()
        thread.join()
        if isinstance(made[0], BaseException):
            raise made[0]
        con = made[0]
    else:
        con = prepare()
    if scope is not None:
        for name in SCOPED:                 # the views again, through the scope's filter
            con.execute(sql(name))
        con.execute(sql("scope_set"), {"scope": scope})
    return con


# A join whose build side holds up to this many values is pushed into the probe side's scan as
# a list, which the view's memory_id indexes answer; past DuckDB's default of 50 it becomes a
# Bloom filter over a scan of every row. A judgement of a few keys reads their entries' rows
# so: the first catch-up after a TUI launch at 5M events read 402 versions of 333 entries in
# 1.45 s by scan, 0.31 s by index (times fall due while the view is built, so it judges more).
ID_LIST_MAX = 2048


@contextmanager
def id_lists(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Within: con's joins push up to ID_LIST_MAX values into their scans as a list. The
    setting is con's alone and restored after, except after an error that aborted con's
    transaction (which refuses SET): then it stays raised, which changes no answer."""
    (was,) = con.execute("SELECT current_setting('dynamic_or_filter_threshold')").fetchone()
    con.execute(f"SET dynamic_or_filter_threshold = {ID_LIST_MAX}")
    try:
        yield
    except BaseException:
        with suppress(duckdb.Error):        # an aborted transaction refuses SET; only a knob
            con.execute(f"SET dynamic_or_filter_threshold = {int(was)}")
        raise
    con.execute(f"SET dynamic_or_filter_threshold = {int(was)}")
