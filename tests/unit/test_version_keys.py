"""The entries of a few keys are found through the view's index of the versions' keys
(version_keys, by a hash of entity and attribute), not by a scan of every version's key (0.04 to
0.2 s of each TUI catch-up at 5M events); exactly the entries that ever held those keys, a
collision of the hash never taken for the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from storegen import entry, write_store
from test_id_lists import scan_of
from inspector.store.append import LogWriter, event_draft
from inspector.store.connection import id_lists
from inspector.store.load import Store
from inspector.store.queries import sql


@pytest.fixture
def viewed(tmp_path) -> Path:
    """Three keys in the view: K1 and K2 hold u.city, K3 holds u.town, then K2 moves to u.town;
    K4 holds v.city (the same attribute under another entity)."""
    events = [("2025-01-01T00:00:00Z", "write", entry("K1", entity="u", attribute="city")),
              ("2025-01-01T00:00:01Z", "write", entry("K2", entity="u", attribute="city")),
              ("2025-01-01T00:00:02Z", "write", entry("K3", entity="u", attribute="town")),
              ("2025-01-01T00:00:03Z", "update", entry("K2", entity="u", attribute="town")),
              ("2025-01-01T00:00:04Z", "write", entry("K4", entity="v", attribute="city"))]
    root = write_store(tmp_path / "s", events)
    Store(root, warn=False).close()                          # cold: writes the view
    return root


def entries_of(con, keys: list[tuple[str, str]]) -> list[str]:
    con.execute(sql("focus_keys_clear"))
    con.execute("INSERT INTO focus_keys SELECT * FROM (VALUES " +
                ", ".join("(?, ?)" for _ in keys) + ")", [part for key in keys for part in key])
    return sorted(i for (i,) in con.execute("SELECT memory_id FROM focus_key_entries").fetchall())


def test_the_entries_that_ever_held_a_key_view_and_lines_read_since(viewed):
    s = Store(viewed, warn=False)
    assert s.con.execute("SELECT count(*) FROM base.version_keys").fetchone() == (5,)
    assert entries_of(s.con, [("u", "city")]) == ["K1", "K2"]          # K2 held it once
    assert entries_of(s.con, [("u", "town")]) == ["K2", "K3"]
    assert entries_of(s.con, [("v", "city"), ("u", "nowhere")]) == ["K4"]
    with LogWriter(s.paths) as writer:
        writer.append([event_draft("write", "K5", "agent:9", after=entry(
            "K5", entity="v", attribute="city", value="new"))])
    s.refresh()
    assert s.con.execute("SELECT memory_id FROM version_keys_new").fetchall() == [("K5",)]
    assert entries_of(s.con, [("v", "city")]) == ["K4", "K5"]
    s.close()


def test_a_hash_that_collides_is_never_taken_for_the_key(viewed):
    s = Store(viewed, warn=False)
    # Another key's version with u.city's hash: found by the index, dropped by the key.
    s.con.execute("INSERT INTO version_keys_new VALUES (hash('u', 'city'), 'K4', 'v', 'city')")
    assert entries_of(s.con, [("u", "city")]) == ["K1", "K2"]
    s.close()


def test_the_entries_of_a_few_keys_are_read_by_index(viewed, tmp_path):
    s = Store(viewed, warn=False)
    out = tmp_path / "profile.json"
    query = sql("focus_ids_fill")

    def scan() -> str | None:
        s.con.execute(sql("focus_ids_clear"))
        s.con.execute("PRAGMA enable_profiling = 'json'")
        s.con.execute(f"PRAGMA profiling_output = '{out}'")
        s.con.execute(query)
        s.con.execute("PRAGMA disable_profiling")
        return scan_of(json.loads(out.read_text()), "base.main.version_keys")

    entries_of(s.con, [("u", "city")])
    with id_lists(s.con):
        assert scan() == "Index Scan"
    assert sorted(s.con.execute("SELECT memory_id FROM focus_ids").fetchall()) == [("K1",), ("K2",)]
    s.close()
