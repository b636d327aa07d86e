"""Curation planners (DESIGN §5) on exact words: where an unknown id was looked for, and the
one line an applied plan prints. Written for the mutants bench/mutation_report.py put into
inspector/store/actions.py."""

from __future__ import annotations

import pytest

from storegen import entry, write_store
from inspector.store.actions import Request
from inspector.store.errors import BadInput
from inspector.store.load import Store
from inspector.store.registry import apply, plan

AT = "2025-01-01T00:00:00Z"


@pytest.fixture
def store(tmp_path):
    root = write_store(tmp_path / "s", [(AT, "write", entry(i, attribute=i.lower(), scope=scope))
                                        for i, scope in (("A", "t:a"), ("B", "t:b"), ("C", "t:a"))])
    loaded = Store(root, warn=False)
    yield loaded
    loaded.close()


def test_an_unknown_id_names_where_it_was_looked_for(store):
    with pytest.raises(BadInput) as unknown:
        plan(store, Request("quarantine", "r", "ops", ("NOPE",)))
    assert str(unknown.value) == f"NOPE: not found in {store.root}; nothing written"
    with pytest.raises(BadInput) as outside:
        plan(store, Request("quarantine", "r", "ops", ("B",), scope="t:a"))
    assert str(outside.value) == f"B: not found in {store.root} inside scope 't:a'; nothing written"


def test_the_line_an_applied_plan_prints(store):
    one = apply(store, plan(store, Request("quarantine", "r", "ops", ("A",))))
    assert one.done() == f"quarantine: 1 entry in batch {one.batch} (seq {one.seqs[0]})"
    two = apply(store, plan(store, Request("quarantine", "r", "ops", ("B", "C"))))
    assert two.seqs[-1] == two.seqs[0] + 1
    assert two.done() == (f"quarantine: 2 entries in batch {two.batch} "
                          f"(seq {two.seqs[0]}–{two.seqs[-1]})")
