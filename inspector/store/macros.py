"""The belief rule's macros (queries/macros.sql) and the tables they read, defined on a
store's connection in the order each needs the ones before; and the macros derived from them
by an exact edit of their text, so that a variant cannot drift from the macro it copies."""

from __future__ import annotations

import duckdb

from .queries import sql

MACROS = ("focus_keys_create", "focus_ids_create", "focus_key_entries_create",
          "focus_versions_create", "macro_visible", "macro_state_replay", "macro_state_at",
          "macro_support_at", "macro_key_in_range", "macro_judged_at", "judged_create",
          "support_create", "macro_pre_reason",
          "macro_beliefs_in", "macro_load_checks")
# The belief macros once more, reading `focus_versions` (the entries judging a few keys needs)
# instead of `versions`, and judged_at for a range of keys: each (statement, [(text, its
# replacement)]) must match exactly once.
MACROS_DERIVED = (
    ("macro_state_replay", [("MACRO state_replay(", "MACRO state_at_focus("),
                            ("FROM versions v\n", "FROM focus_versions v\n"),
                            ("FROM versions WHERE", "FROM focus_versions WHERE")]),
    ("macro_support_at", [("MACRO support_at(", "MACRO support_at_focus("),
                          ("FROM state_at(tk)", "FROM state_at_focus(tk)")]),
    ("macro_judged_at", [("MACRO judged_at(", "MACRO judged_at_focus("),
                         ("FROM state_at(tk)", "FROM state_at_focus(tk)"),
                         ("JOIN support_at(tk)", "JOIN support_at_focus(tk)")]),
    # judged_at for one range of keys, reading the summaries' support from the `support`
    # table (beliefs.in_ranges walks the store once, then judges it a range at a time).
    ("macro_judged_at", [("MACRO judged_at(tk)", "MACRO judged_in_range(tk, lo_entity, "
                          "lo_attribute, hi_entity, hi_attribute)"),
                         ("JOIN support_at(tk) p ON p.memory_id = s.memory_id",
                          "JOIN support p ON p.memory_id = s.memory_id\nWHERE key_in_range("
                          "s.entity, s.attribute, lo_entity, lo_attribute, hi_entity, "
                          "hi_attribute)")]),
)


def define(con: duckdb.DuckDBPyConnection) -> None:
    for name in MACROS:
        con.execute(sql(name))
    for name, edits in MACROS_DERIVED:
        con.execute(_edited(sql(name), edits))


def _edited(text: str, edits: list[tuple[str, str]]) -> str:
    for old, new in edits:
        if text.count(old) != 1:
            raise AssertionError(f"derived macro: {old!r} occurs {text.count(old)} times")
        text = text.replace(old, new)
    return text
