"""A --scope session scans what lies inside its scope: an event outside it changes none of its
findings, so the Findings are not called stale for it (helper-64: an append to another tenant
marked them "(2, stale)"). Events inside it are counted, not the log's seqs."""

from __future__ import annotations

from storegen import entry, write_store
from inspector.store.append import LogWriter, event_draft
from inspector.store.logfile import store_paths
from inspector.tui.session import Session


def append(root, *entries) -> None:
    with LogWriter(store_paths(root)) as writer:
        writer.append([event_draft("write", e["id"], "agent:1", after=e) for e in entries])


def test_events_outside_a_session_s_scope_leave_its_findings_current(tmp_path):
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("A1", scope="tenant:a")),
        ("2025-01-01T00:00:01Z", "write", entry("B1", scope="tenant:b"))])
    scoped, whole = Session(root, scope="tenant:a"), Session(root)
    for s in (scoped, whole):
        s.open()
        s.findings()
    assert (scoped.findings_behind(), whole.findings_behind()) == (None, None)
    append(root, entry("B2", attribute="x", scope="tenant:b"),
           entry("B3", attribute="y", scope="tenant:b/team"))
    for s in (scoped, whole):
        assert s.store.refresh() == 2                 # the log's seq moved on for both
    assert (scoped.findings_behind(), whole.findings_behind()) == (None, 2)
    append(root, entry("A2", attribute="z", scope="tenant:a/x"), entry("B4", scope="tenant:b"))
    for s in (scoped, whole):
        s.store.refresh()
    assert (scoped.findings_behind(), whole.findings_behind()) == (1, 4)
