"""ingest plans a feed before it takes the store's lock, so a refused feed writes nothing, not
even the lock file (an outside probe saw `.lock` appear); a log that changed between the plan
and the lock is planned again."""

from __future__ import annotations

import json
import os

from storegen import entry
from inspector.store import ingest as ingest_mod
from inspector.store.append import LogWriter, event_draft, init_store
from inspector.store.logfile import store_paths


def _feed(tmp_path, *lines) -> object:
    path = tmp_path / "feed.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _line(id, value):
    return {"id": id, "entity": "svc", "attribute": id.lower(), "value": value, "kind": "observation",
            "source": "tool:t", "observed_at": "2025-01-01T00:00:00Z"}


def test_a_line_of_json_that_is_no_object_is_said_once(tmp_path):
    """It read "not a JSON object (not a JSON object)" (probe, stop 46)."""
    paths = init_store(tmp_path / "s")
    feed = tmp_path / "feed.jsonl"
    feed.write_bytes(b'null\n[1]\n"x"\n{"a":\n')
    result = ingest_mod.ingest(paths, feed, actor="agent:1")
    assert result.refused and result.rejected == [
        (1, "not a JSON object"), (2, "not a JSON object"), (3, "not a JSON object"),
        (4, "not a JSON object (Expecting value: line 1 column 6 (char 5))")]
    assert paths.log.read_bytes() == b""


def test_a_refused_feed_leaves_the_store_directory_as_it_was(tmp_path, monkeypatch):
    """A store below the size that keeps a view (a larger one's first command writes the view,
    under the lock, which is the cache's own doing)."""
    monkeypatch.delenv("INSPECTOR_VIEW_MIN_BYTES")
    paths = init_store(tmp_path / "s")
    before = sorted(os.listdir(paths.root))
    feed = tmp_path / "bad.jsonl"
    feed.write_bytes(b"\xef\xbb\xbf{}\n")
    result = ingest_mod.ingest(paths, feed, actor="agent:1")
    assert result.refused and result.rejected == [(1, "not a JSON object (starts with a byte-order mark)")]
    assert sorted(os.listdir(paths.root)) == before == ["events.jsonl"]
    assert paths.log.read_bytes() == b""


def test_a_log_appended_to_between_plan_and_lock_is_planned_again(tmp_path, monkeypatch):
    paths = init_store(tmp_path / "s")
    other = {**entry("X1", "svc", "x1", "same"), "source": "tool:t"}

    class Racing(LogWriter):
        def __enter__(self):
            monkeypatch.setattr(ingest_mod, "LogWriter", LogWriter)     # once
            with LogWriter(store_paths(paths.root)) as writer:        # another writer, first
                writer.append([event_draft("write", "X1", "agent:2", after=other)])
            return super().__enter__()

    monkeypatch.setattr(ingest_mod, "LogWriter", Racing)
    result = ingest_mod.ingest(paths, _feed(tmp_path, _line("X1", "same"), _line("Y1", "y")),
                               actor="agent:1")
    # planned alone, X1 would have been written; planned again after the other writer's
    # line, it is unchanged
    assert (result.written, result.unchanged, result.refused) == (["Y1"], ["X1"], False)
    assert [json.loads(l)["memory_id"] for l in paths.log.read_text().splitlines()] == ["X1", "Y1"]
