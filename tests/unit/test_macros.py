"""The whole-store belief macros are defined when a statement naming one first runs
(store/macros.py): every such statement is fetched through macros.sql, and a store opened for
a few keys never binds them."""

from __future__ import annotations

import re
from pathlib import Path

from storegen import entry, write_store
from inspector.store import macros, queries
from inspector.store.load import Store

PACKAGE = Path(__file__).resolve().parents[2] / "inspector"
WHOLE = ("judged_at", "judged_in_range", "state_at", "state_replay", "support_at")


def defined(con) -> list[str]:
    return [name for (name,) in con.execute(
        "SELECT function_name FROM duckdb_functions() WHERE function_name IN "
        "(SELECT unnest($n::VARCHAR[])) ORDER BY 1", {"n": list(WHOLE)}).fetchall()]


class Watched:
    """A connection that records what is executed on it."""

    def __init__(self, con):
        self.con, self.seen = con, []

    def execute(self, query, *params):
        self.seen.append(query)
        return self.con.execute(query, *params)


def test_what_each_statement_needs_is_what_it_calls_and_what_those_call():
    needing = {name: [m for _, made in macros.needs(name) for m in made]
               for name in queries.names() if macros.needs(name) and not name.startswith("macro_")}
    assert needing == {
        "diff_edges_create": ["state_replay", "state_at"],
        "diff_judged": ["state_replay", "state_at", "support_at", "judged_at"],
        "judged_add_range": ["state_replay", "state_at", "judged_in_range"],
        "judged_range_starts": ["state_replay", "state_at"],
        "report_held_queue": ["state_replay", "state_at"],
        "scan_unsupported": ["state_replay", "state_at"]}


def test_no_module_fetches_a_statement_that_needs_them_without_defining_them():
    plain = re.compile(r"(?<![\w.])sql\(\s*\"(\w+)\"")      # sql("x"), not macros.sql(con, "x")
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "macros.py":
            continue
        for name in plain.findall(path.read_text(encoding="utf-8")):
            if macros.needs(name):
                found.append(f"{path.relative_to(PACKAGE)}: {name}")
    assert found == []


def test_a_store_binds_them_only_when_a_statement_needs_them(tmp_path):
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", entry(f"M{i}", value=i))
                                        for i in range(3)])
    store = Store(root, warn=False)
    try:
        assert defined(store.con) == []
        text = macros.sql(store.con, "scan_unsupported")
        assert text == queries.sql("scan_unsupported")
        assert defined(store.con) == ["state_at", "state_replay"]
        macros.sql(store.cursor(), "diff_judged")           # a cursor shares the database
        assert defined(store.con) == ["judged_at", "state_at", "state_replay", "support_at"]
        watched = Watched(store.con)
        macros.sql(watched, "diff_judged")                  # once: nothing is bound again
        assert [q.split("(")[0] for q in watched.seen] == ["SELECT function_name FROM duckdb_functions"]
        macros.whole(store.con)
        assert defined(store.con) == ["judged_at", "judged_in_range", "state_at", "state_replay",
                                      "support_at"]
    finally:
        store.close()
