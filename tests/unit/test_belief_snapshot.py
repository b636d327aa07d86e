"""The belief snapshot (snapshot.py): a TUI launch that starts from the belief view an earlier
session left shows exactly what a launch that judges every entry shows, after any appends and
any time passed in between; a snapshot is used only for its own code, log, scope and view, and
goes with the view when the log is found tampered with."""

from __future__ import annotations

import os
import shutil
from datetime import datetime, timezone

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from inspector.store import beliefs, snapshot, view
from inspector.store.append import LogWriter, event_draft
from inspector.store.load import Store
from inspector.store.logfile import store_paths
from inspector.tui import session as session_module
from inspector.tui.session import Session
from storegen import entry, write_store
from test_view import TUI_TABLES, later_drafts, timed_entries, tui_tables

EXAMPLES = int(os.environ.get("VIEW_EXAMPLES", "6"))
T0 = datetime(2025, 2, 15, tzinfo=timezone.utc)
T1 = datetime(2025, 3, 15, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def every_log_keeps_a_view(monkeypatch):
    monkeypatch.setenv("INSPECTOR_VIEW_MIN_BYTES", "0")


def at(monkeypatch, moment: datetime) -> None:
    """Every Moment.resolve() (the TUI's "now") is `moment` from here on."""
    monkeypatch.setattr(beliefs, "now_utc", lambda: moment)


def launched(root, context: str | None = None, scope: str | None = None) -> Session:
    """What InspectorApp._open does: open, the view (from a snapshot when one fits), index."""
    s = Session(root, scope=scope)
    s.open()
    s.set_view(context, None, None)
    s.open_view()
    s.index()
    return s


def patched(s: Session) -> bool:
    return s.store.con.execute("SELECT count(*) FROM duckdb_tables() "
                               "WHERE table_name = 'patch_shift'").fetchone() == (1,)


@pytest.mark.heavy
@settings(max_examples=EXAMPLES * 3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), context=st.sampled_from([None, "tenant:a/user:1"]),
       scope=st.sampled_from([None, "tenant:a"]))
def test_a_launch_from_a_snapshot_equals_one_that_judges_everything(tmp_path_factory, data, context,
                                                                     scope):
    with pytest.MonkeyPatch.context() as mp:
        first = data.draw(timed_entries("M", data.draw(st.integers(2, 8)), []))
        root = write_store(tmp_path_factory.mktemp("snap") / "s",
                           [("2025-01-01T00:00:00Z", "write", e) for e in first])
        at(mp, T0)
        earlier = launched(root, context, scope)
        assert earlier.save_snapshot() is True
        seq = earlier.store.state.seq
        earlier.store.close()
        # another process appends (new entries citing old ones, new versions of old ones) and
        # time passes: validity starts and ends fall between the snapshot's moment and the
        # next launch's
        drafts = later_drafts(data, first)
        for d in drafts:     # stamped before the snapshot's moment (a slow clock), between, after
            d["at"] = data.draw(st.sampled_from(["2025-02-01T00:00:00Z", "2025-03-01T00:00:00Z",
                                                 "2025-04-01T00:00:00Z"]))
        if drafts:
            with LogWriter(earlier.store.paths) as writer:
                writer.append(drafts)
        at(mp, T1)
        started = launched(root, context, scope)
        assert patched(started) or scope is not None, \
            "the launch judged everything instead of taking the snapshot"   # scoped: may build whole
        from_snapshot = patched(started)
        # a launch that took the snapshot leaves it (fewer than 20,000 lines behind); one that
        # built whole (an entry left the scope) leaves its own
        assert started.save_snapshot() is not from_snapshot
        if not from_snapshot:
            seq = started.store.state.seq
        taken = tui_tables(started.store.con)
        assert started.spec.moment.tk == T1
        whole = launched(root, context, scope)
        whole.rebuild_view()
        built = tui_tables(whole.store.con)
        for name in TUI_TABLES:
            assert [r for r in taken[name] if r not in built[name]] == \
                [r for r in built[name] if r not in taken[name]], name
        assert snapshot.take(whole.store.con, whole.store.paths, whole.store.mark(), scope,
                             context).seq == seq
        started.store.close()
        whole.store.close()


def test_a_line_appended_after_the_snapshot_but_stamped_before_its_moment_is_judged(tmp_path,
                                                                                      monkeypatch):
    """Nothing about N0 falls between the two moments (a writer with a slow clock stamped it
    before the snapshot's): only the lines read since the snapshot name it."""
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write",
                                         entry("M0", observed_at="2025-01-01T00:00:00Z"))])
    at(monkeypatch, T0)
    s = launched(root)
    assert s.save_snapshot() is True
    s.store.close()
    draft = event_draft("write", "N0", "agent:9",
                        after=entry("N0", attribute="other", observed_at="2025-01-01T00:00:00Z"))
    draft["at"] = "2025-02-01T00:00:00Z"
    with LogWriter(store_paths(root)) as writer:
        writer.append([draft])
    at(monkeypatch, T1)
    s = launched(root)
    assert patched(s)
    assert s.store.con.execute("SELECT pos, memory_id FROM beliefs ORDER BY pos").fetchall() == \
        [(1, "M0"), (2, "N0")]
    s.store.close()


def store_with_snapshot(tmp_path, context: str | None = None, scope: str | None = None):
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("A", value="old")),
        ("2025-01-02T00:00:00Z", "write", entry("B", attribute="plan", value="pro"))])
    s = launched(root, context, scope)
    assert s.save_snapshot() is True
    s.store.close()
    return root


def taken(root, context: str | None = None, scope: str | None = None):
    store = Store(root, scope=scope, warn=False)
    try:
        return snapshot.take(store.con, store.paths, store.mark(), scope, context)
    finally:
        store.close()


def test_a_snapshot_holds_the_beliefs_it_was_built_with_and_no_other_entry(tmp_path, monkeypatch):
    at(monkeypatch, T1)
    root = store_with_snapshot(tmp_path)
    con = duckdb.connect()
    con.execute(f"ATTACH '{snapshot.path(store_paths(root))}' AS s (READ_ONLY)")
    assert con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 's' "
                       "ORDER BY 1").fetchall() == [("beliefs",), ("snapshot_meta",)]
    con.close()
    store = Store(root, warn=False)
    assert snapshot.take(store.con, store.paths, store.mark(), None, None) == snapshot.Taken(T1, 2)
    assert store.con.execute("SELECT pos, memory_id, value FROM beliefs ORDER BY pos").fetchall() == \
        [(1, "A", '"old"'), (2, "B", '"pro"')]
    assert store.con.execute("SELECT count(*) FROM judged").fetchone()[0] == 0
    store.close()


@pytest.mark.parametrize("other", [
    {"context": "tenant:a"}, {"scope": "tenant:a"}])
def test_a_snapshot_serves_only_its_own_scope_and_view(tmp_path, other):
    root = store_with_snapshot(tmp_path)
    assert taken(root) is not None
    assert taken(root, **other) is None


def test_a_snapshot_of_another_version_of_the_code_is_not_used(tmp_path, monkeypatch):
    root = store_with_snapshot(tmp_path)
    monkeypatch.setattr(view, "code_digest", lambda: "another version")
    assert taken(root) is None


@pytest.mark.parametrize("change", ["replaced", "truncated", "rolled_back"])
def test_a_snapshot_of_a_log_that_is_not_the_one_loaded_is_not_used(tmp_path, change):
    root = store_with_snapshot(tmp_path)
    log = root / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    if change == "replaced":
        shutil.copy(log, root / "copy")
        os.replace(root / "copy", log)
    elif change == "truncated":
        log.write_bytes(b"".join(lines[:1]))
    else:       # cut back in place, then another second event: same seq, another line
        log.write_bytes(lines[0])
        with LogWriter(store_paths(root)) as writer:
            writer.append([event_draft("write", "C", "agent:9", after=entry("C", attribute="c"))])
    assert taken(root) is None


def test_a_launch_after_more_than_snapshot_lines_leaves_a_new_snapshot(tmp_path, monkeypatch):
    root = store_with_snapshot(tmp_path)
    with LogWriter(store_paths(root)) as writer:
        writer.append([event_draft("write", "C", "agent:9", after=entry("C", attribute="c"))])
    monkeypatch.setattr(session_module, "SNAPSHOT_LINES", 2)
    s = launched(root)
    assert s.save_snapshot() is False           # 1 line behind
    s.store.close()
    monkeypatch.setattr(session_module, "SNAPSHOT_LINES", 1)
    s = launched(root)
    assert patched(s) and s.save_snapshot() is True
    s.store.close()
    assert taken(root).seq == 3


def test_a_view_at_another_moment_is_never_left(tmp_path):
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", entry("A"))])
    s = Session(root)
    s.open()
    s.set_view(None, T0, None)
    s.open_view()
    assert s.save_snapshot() is False
    assert not snapshot.path(s.store.paths).exists()
    s.store.close()


def test_a_snapshot_is_never_put_in_place_over_a_log_an_erasure_replaced(tmp_path):
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", entry("A"))])
    s = launched(root)
    shutil.copy(root / "events.jsonl", root / "copy")
    os.replace(root / "copy", root / "events.jsonl")
    assert s.save_snapshot() is False
    assert sorted(p.name for p in (root / ".inspector").iterdir()) == ["view.duckdb"]
    s.store.close()


def test_tampering_found_discards_the_snapshot_with_the_view(tmp_path):
    root = store_with_snapshot(tmp_path)
    assert sorted(p.name for p in (root / ".inspector").iterdir()) == ["beliefs.duckdb", "view.duckdb"]
    view.discard(store_paths(root))
    assert list((root / ".inspector").iterdir()) == []


@pytest.mark.parametrize("path", ["launch", "live"])
def test_an_entry_that_left_a_scoped_sessions_scope_leaves_its_rows(tmp_path, monkeypatch, path):
    """A scoped store no longer shows an entry whose current state left the scope, so no patch
    can take its rows away: the launch from a snapshot, and the live path, build whole."""
    m0 = entry("M0", scope="tenant:a", entity="user:1", attribute="city", value="Lisbon")
    m1 = entry("M1", scope="tenant:a", entity="user:2", attribute="city", value="Porto")
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", m0),
                                        ("2025-01-01T00:00:00Z", "write", m1)])
    at(monkeypatch, T0)
    s = launched(root, scope="tenant:a")
    assert s.save_snapshot() is True
    moved = event_draft("update", "M0", "agent:9", before=m0, after={**m0, "scope": "tenant:b"})
    moved["at"] = "2025-03-01T00:00:00Z"
    with LogWriter(store_paths(root)) as writer:
        writer.append([moved])
    at(monkeypatch, T1)
    if path == "live":
        s.store.refresh()
        s.take_appended()
    else:
        s.store.close()
        s = launched(root, scope="tenant:a")
    assert s.store.con.execute("SELECT pos, memory_id FROM beliefs").fetchall() == [(1, "M1")]
    assert s.store.con.execute("SELECT memory_id FROM tui_all").fetchall() == [("M1",)]
    s.store.close()
