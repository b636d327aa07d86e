"""The SQL mutator of bench/mutation_report.py: it makes the mutants it promises, one change
each, never inside a comment, a string or a BETWEEN … AND, and DuckDB parses every mutant of
the statements the report mutates (an unparsable mutant would be "killed" by any test)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "mutation"))

import sqlmut  # noqa: E402

TEXT = """-- A file.

-- name: sample
-- A comment with a = b AND c < d that is never mutated.
CREATE OR REPLACE TABLE t AS
SELECT DISTINCT a, 'x <= y AND z' AS s FROM u LEFT JOIN v ON v.id = u.id
WHERE a <= $hi AND b IS NULL AND pos BETWEEN $first AND $last
UNION
SELECT a, s FROM w WHERE NOT c OR d > 1
ORDER BY a DESC, b
"""


def changes(operator: str) -> list[tuple[str, str]]:
    return sorted((m.before, m.after) for m in sqlmut.mutants("queries/x.sql", TEXT)
                  if m.operator == operator)


def test_each_operator_makes_its_mutants():
    assert changes("cmp") == [("<=", "<"), ("=", "<>"), (">", ">="), ("IS NULL", "IS NOT NULL")]
    assert changes("andor") == [("AND", "OR"), ("AND", "OR"), ("OR", "AND")]
    assert changes("drop") == [(" NOT c OR", " "), (" a <= $hi AND", " "), ("AND b IS NULL", ""),
                               ("AND pos BETWEEN $first AND $last", "")]
    assert changes("order") == [("a DESC", "a ASC"), ("a DESC, b", "b, a DESC"), ("b", "b DESC")]
    assert changes("union") == [("UNION", "UNION ALL")]
    assert changes("const") == [("1", "2")]
    assert changes("join") == [("LEFT JOIN", "JOIN")]
    assert changes("not") == [("NOT ", "")]
    assert changes("distinct") == [("DISTINCT ", "")]


def test_comments_and_strings_are_never_touched():
    for mutant in sqlmut.mutants("queries/x.sql", TEXT):
        assert mutant.text.count("-- A comment with a = b AND c < d that is never mutated.") == 1
        assert "'x <= y AND z'" in mutant.text and "CREATE OR REPLACE" in mutant.text
        assert mutant.text.splitlines()[:3] == TEXT.splitlines()[:3]


@pytest.mark.parametrize("name", ["beliefs", "macros", "lineage", "actions", "erasure"])
def test_every_mutant_of_the_mutated_statements_parses(name):
    relative = f"queries/{name}.sql"
    found = sqlmut.mutants(relative, (ROOT / relative).read_text(encoding="utf-8"))
    assert len(found) > 20
    assert [m.describe() for m in found if not sqlmut.parses(m)] == []
