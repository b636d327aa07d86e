"""The belief rule's macros (queries/macros.sql) and the tables they read, defined on a
store's connection in the order each needs the ones before; and the macros derived from them
by an exact edit of their text, so that a variant cannot drift from the macro it copies.

Defining a macro binds it (DuckDB checks every table and function it names), which costs a few
milliseconds each: 42 ms for all of them, a sixth of a warm `show`. So `define` defines what
loading and judging a few keys need, and the macros that judge the whole store (WHOLE) are
defined the first time a statement naming one runs: such a statement is fetched through
`sql(con, name)` here, never `queries.sql` (tests/unit/test_macros.py holds every call site to
that).
"""

from __future__ import annotations

import re
import threading
from functools import cache

from .engine import duckdb
from . import queries

MACROS = ("focus_keys_create", "macro_key_fence_every", "macro_key_places", "macro_plan_of",
          "macro_shift_ranges_of", "patch_plan_create", "patch_new_positions_view",
          "focus_ids_create", "focus_key_entries_create", "versions_judged_create",
          "focus_version_rows_create",
          "focus_versions_create", "macro_visible", "macro_key_in_range", "judged_create",
          "support_create", "macro_pre_reason", "macro_beliefs_in", "macro_load_checks")
# The belief macros once more, reading `focus_versions` (the entries judging a few keys needs)
# instead of `versions`, and judged_at for a range of keys: each (statement, [(text, its
# replacement[, how many times it occurs])]) must match exactly that often (once if not said).
MACROS_DERIVED = (
    ("macro_state_replay", [("MACRO state_replay(", "MACRO state_at_focus("),
                            ("FROM versions v\n", "FROM focus_versions v\n"),
                            ("FROM versions WHERE", "FROM focus_versions WHERE")]),
    ("macro_support_at", [("MACRO support_at(tk, now)", "MACRO support_at_focus(tk)"),
                          ("FROM state_at(tk, now)", "FROM state_at_focus(tk)", 4)]),
    ("macro_judged_at", [("MACRO judged_at(tk, now)", "MACRO judged_at_focus(tk)"),
                         ("FROM state_at(tk, now)", "FROM state_at_focus(tk)"),
                         ("JOIN support_at(tk, now)", "JOIN support_at_focus(tk)")]),
)
# The macros that judge the whole store, each defined after those it uses, when first needed.
WHOLE = ("macro_state_replay", "macro_state_at", "macro_support_at", "macro_judged_at")
# judged_at for one range of keys, reading the summaries' support from the `support` table
# (beliefs.in_ranges walks the store once, then judges it a range at a time).
WHOLE_DERIVED = (
    ("macro_judged_at", [("MACRO judged_at(tk, now)", "MACRO judged_in_range(tk, now, "
                          "lo_entity, lo_attribute, hi_entity, hi_attribute)"),
                         ("JOIN support_at(tk, now) p ON p.memory_id = s.memory_id",
                          "JOIN support p ON p.memory_id = s.memory_id\nWHERE key_in_range("
                          "s.entity, s.attribute, lo_entity, lo_attribute, hi_entity, "
                          "hi_attribute)")]),
)
Definitions = tuple[tuple[str, tuple[str, ...]], ...]    # (text, the macros it defines)
DEFINES = re.compile(r"\bCREATE\s+OR\s+REPLACE\s+MACRO\s+(\w+)")
_defining = threading.Lock()


def define(con: duckdb.DuckDBPyConnection) -> None:
    """What loading and judging a few keys need (the WHOLE macros wait for `sql`)."""
    for name in MACROS:
        con.execute(queries.sql(name))
    for name, edits in MACROS_DERIVED:
        con.execute(_edited(queries.sql(name), edits))


def sql(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """queries.sql(name), once the WHOLE macros it names (and those they use) are defined on
    con's database."""
    _ensure(con, needs(name))
    return queries.sql(name)


def whole(con: duckdb.DuckDBPyConnection) -> None:
    """Every WHOLE macro, for SQL written outside queries/ (a test's, a bench's)."""
    _ensure(con, _whole())


def _ensure(con: duckdb.DuckDBPyConnection, needed: Definitions) -> None:
    if not needed:
        return
    with _defining:
        names = [macro for _, defined in needed for macro in defined]
        present = {row[0] for row in con.execute(
            "SELECT function_name FROM duckdb_functions() WHERE function_name IN "
            "(SELECT unnest($names::VARCHAR[]))", {"names": names}).fetchall()}
        for text, defined in needed:
            if not set(defined) <= present:
                con.execute(text)


@cache
def needs(name: str) -> Definitions:
    """The WHOLE definitions (text, the macros it defines) statement `name` needs, in order."""
    defs = _whole()
    wanted = _named(queries.sql(name), defs)
    for i in reversed(range(len(defs))):    # a definition uses only those before it
        if i in wanted:
            wanted |= _named(defs[i][0], defs) - {i}
    return tuple(defs[i] for i in sorted(wanted))


@cache
def _whole() -> Definitions:
    texts = [queries.sql(name) for name in WHOLE]
    texts += [_edited(queries.sql(name), edits) for name, edits in WHOLE_DERIVED]
    return tuple((text, tuple(DEFINES.findall(text))) for text in texts)


def _named(text: str, defs: Definitions) -> set[int]:
    """The definitions whose macros `text` calls (a name followed by "(")."""
    return {i for i, (_, defined) in enumerate(defs)
            if any(re.search(rf"\b{name}\s*\(", text) for name in defined)}


def _edited(text: str, edits: list[tuple]) -> str:
    for old, new, *times in edits:
        if text.count(old) != (times[0] if times else 1):
            raise AssertionError(f"derived macro: {old!r} occurs {text.count(old)} times")
        text = text.replace(old, new)
    return text
