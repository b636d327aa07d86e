"""The suppression list (DESIGN §6) on a log that holds erase events the inspector did not
write whole: only an erase event with both its salt and its digest suppresses anything, and
writing through the gate still works beside the others. Written for the mutants
bench/mutation_report.py put into queries/erasure.sql."""

from __future__ import annotations

import json

from storegen import entry, write_store
from inspector.store import gate
from inspector.store.ingest import ingest
from inspector.store.load import Store
from inspector.store.logfile import store_paths
from inspector.store.queries import sql

AT = "2025-01-01T00:00:00Z"
SALT = "5a17"


def erased(eid: str, **fields) -> dict:
    return {"id": eid, "status": "erased", "certificate": f"cert-{eid}", **fields}


def test_only_an_erase_event_with_salt_and_digest_suppresses(tmp_path):
    digest = gate.subject_digest(SALT, "user:42")
    root = write_store(tmp_path / "s", [
        (AT, "write", entry("A")),
        (AT, "erase", erased("WHOLE", subject_digest=digest, subject_salt=SALT)),
        (AT, "erase", erased("NO_SALT", subject_digest=gate.subject_digest(SALT, "user:7"))),
        (AT, "erase", erased("NO_DIGEST", subject_salt=SALT)),
        (AT, "erase", erased("BY_ID")),                               # erased by ids: no subject
        (AT, "write", {**entry("B"), "subject_digest": digest, "subject_salt": SALT}),   # not an erase
    ])
    store = Store(root, warn=False)
    assert store.con.execute(sql("suppressed_subjects")).fetchall() == [(SALT, digest)]
    store.close()
    feed = tmp_path / "feed.jsonl"
    feed.write_text("\n".join(json.dumps(entry(i, attribute=i.lower(), subject=who))
                              for i, who in (("N1", "user:42"), ("N2", "user:7"))) + "\n")
    result = ingest(store_paths(root), feed, actor="agent:1")
    store = Store(root, warn=False)
    statuses = dict(store.con.execute("SELECT memory_id, status FROM entries "
                                      "WHERE memory_id IN ('N1', 'N2')").fetchall())
    assert statuses == {"N1": "held", "N2": "active"}, result
    store.close()
