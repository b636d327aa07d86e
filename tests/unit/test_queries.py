"""Every query file runs against a sample store, and every name the code loads exists."""

from __future__ import annotations

import re
from pathlib import Path

from inspector.store import beliefs, entries, lineage, queries
from inspector.store.load import Store

ROOT = Path(__file__).resolve().parents[2]


def test_every_name_the_code_loads_exists():
    names = set(queries.names())
    loaded = set()
    for path in (ROOT / "inspector").rglob("*.py"):
        loaded.update(re.findall(r'sql\("([a-z0-9_]+)"\)', path.read_text()))
    assert loaded <= names, sorted(loaded - names)


def test_every_query_file_runs_on_a_sample_store(sample, tmp_path):
    root = sample("branch-contamination")
    with open(root / "events.jsonl", "ab") as log:
        log.write(b'{"seq": 13, "at"')            # a torn tail, which the fast path drops
    store = Store(root, warn=False)
    store.refresh()
    spec = beliefs.ViewSpec(None, beliefs.Moment.resolve())
    beliefs.materialize(store.con, spec)
    beliefs.page(store.con, 1, 50)
    beliefs.rivals(store.con, spec, "svc", "timeout_repair", "repo:svc/branch:legacy-v2")
    beliefs.conflicts(store.con)
    entries.show(store.con, "M7", "here")
    entries.held(store.con)
    lineage.lineage(store.con, "M3")
    from storegen import entry
    from inspector.store.append import event_draft
    with store.what_if([event_draft("write", "N1", "agent:1", after=entry("N1"))]):
        pass
    store.con.execute(queries.sql("audit_counts"))
    store.con.execute(queries.sql("suppressed_subjects"))
    store.con.execute(queries.sql("unsupported_among"), {"tk": spec.moment.tk, "ids": ["M4"]})
    from inspector.store.actions import Request, apply, make_plan
    from inspector.store.erasure import EraseRequest, apply_erasure, plan_erasure
    apply(store, make_plan(store, Request("quarantine", "r", "alice", ("M1",))))
    apply(store, make_plan(store, Request("release", "r", "alice", ("M1",), cascade=True)))
    make_plan(store, Request("quarantine", "r", "alice", principal="agent:427"))
    apply_erasure(store, plan_erasure(store, EraseRequest("INC-1", "dana", subject="repo:svc")))
    from inspector.store.scan import scan
    scan(store)
    from inspector.tui.session import Session
    for scope in (None, "tenant:acme"):
        session = Session(sample("multi-tenant"), scope=scope)
        session.open()
        session.rebuild_view()
        session.index()
        session.refilter("alice")
        for source in (session.belief_source(), session.held_source(), session.quarantine_source(),
                       session.conflict_source(), session.log_source()):
            source.fetch(0, source.count())
        session.visible("beliefs", ["T1"])
        session.find_belief("T1", "tenant:acme/user:alice")
        session.counts()
        session.detail("T4", None)
    scoped = Store(sample("multi-tenant"), scope="tenant:acme", warn=False)
    assert scoped.con.execute("SELECT count(*) FROM entries").fetchone() == (5,)
    missing = set(queries.names()) - queries.used
    assert not missing, f"query files never run: {sorted(missing)}"
