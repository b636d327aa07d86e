"""Loading (store/load.py) on exact state: an all-unchained log is not taken for a chained one,
and the persistent view is written again exactly when REPUBLISH_LINES lines were read past it.
Written for the mutants bench/mutation_report.py put into inspector/store/load.py."""

from __future__ import annotations

import json

from logtools import write_lines
from storegen import entry, write_store
from inspector.store import view
from inspector.store.append import LogWriter, event_draft
from inspector.store.load import Store


def events(n: int, first: int = 1):
    return [(f"2025-01-0{i}T00:00:00Z", "write", entry(f"M{i}", attribute=f"a{i}"))
            for i in range(first, first + n)]


def test_a_log_of_unchained_lines_only_is_not_chained(tmp_path):
    root = write_store(tmp_path / "s", events(3))
    lines = []
    for raw in (root / "events.jsonl").read_bytes().splitlines():
        event = json.loads(raw)
        event.pop("prev"), event.pop("hash")
        lines.append(json.dumps(event, sort_keys=True, separators=(",", ":")).encode())
    write_lines(root, lines)
    store = Store(root, warn=False)
    assert (store.state.seq, store.state.chained, store.state.unchained, store.head) == (3, False, 3, "3:")
    store.close()


def test_a_chained_log_is_chained(tmp_path):
    store = Store(write_store(tmp_path / "s", events(2)), warn=False)
    assert (store.state.chained, store.state.unchained) == (True, 0)
    store.close()


def append(root, n: int, first: int) -> None:
    store = Store(root, warn=False)
    drafts = [event_draft("write", e["id"], "agent:1", after=e) for _, _, e in events(n, first)]
    with LogWriter(store.paths) as writer:
        writer.append(drafts)
    store.close()


def test_the_view_is_written_again_from_republish_lines_on(tmp_path, monkeypatch):
    monkeypatch.setattr(view, "REPUBLISH_LINES", 3)
    root = write_store(tmp_path / "s", events(2))
    Store(root, warn=False).close()                       # the first view: seq 2
    append(root, 2, 3)
    store = Store(root, warn=False)
    assert (store.state.seq, store.base_seq) == (4, 2)    # two lines past the view: kept
    store.close()
    append(root, 1, 5)
    store = Store(root, warn=False)
    assert (store.state.seq, store.base_seq) == (5, 5)    # three: written again
    store.close()
