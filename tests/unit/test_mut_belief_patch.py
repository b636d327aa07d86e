"""The statements behind a belief patch (the TUI's live path, beliefs.patch) and a per-key
judgement (beliefs.judge_keys, for `show` and plans), each pinned on exact values: which
entries changed between two moments (every bound at its edge), which keys rest on changed
entries, which entries judging a key needs, and the patched tables against a rebuild. Written
for the mutants bench/mutation_report.py put into queries/beliefs.sql."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from storegen import entry, write_store
from inspector.store import beliefs as B
from inspector.store.actions import Request
from inspector.store.append import LogWriter, event_draft
from inspector.store.load import Store
from inspector.store.queries import sql
from inspector.store.registry import ACTIONS

SINCE = "2025-02-01T00:00:00Z"
TK = "2025-03-01T00:00:00Z"
EARLY = "2025-01-01T00:00:00Z"
MID = "2025-02-15T00:00:00Z"
LATE = "2025-04-01T00:00:00Z"


def t(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


# -- changed_between ----------------------------------------------------------------------------

def test_changed_between_takes_each_time_inside_since_exclusive_tk_inclusive(tmp_path):
    def e(eid, **kw):
        return entry(eid, attribute=eid.lower(), **kw)
    events = [(EARLY, "write", e("BEFORE")),
              (SINCE, "write", e("AT_SINCE")), (TK, "write", e("AT_TK")), (LATE, "write", e("AT_LATE")),
              (MID, "write", e("TWICE")), (TK, "update", e("TWICE", value="w")),
              (EARLY, "write", e("OBS_SINCE", observed_at=SINCE)),
              (EARLY, "write", e("OBS_TK", observed_at=TK)),
              (EARLY, "write", e("OBS_LATE", observed_at=LATE)),
              (EARLY, "write", e("VF_SINCE", valid_from=SINCE)),
              (EARLY, "write", e("VF_TK", valid_from=TK)),
              (EARLY, "write", e("VF_LATE", valid_from=LATE)),
              (EARLY, "write", e("VT_SINCE", valid_to=SINCE)),
              (EARLY, "write", e("VT_TK", valid_to=TK)),
              (EARLY, "write", e("VT_LATE", valid_to=LATE))]
    store = Store(write_store(tmp_path / "s", events), warn=False)
    got = sorted(i for (i,) in store.con.execute(sql("changed_between"),
                                                  {"since": t(SINCE), "tk": t(TK)}).fetchall())
    assert got == ["AT_TK", "OBS_TK", "TWICE", "VF_TK", "VT_TK"]      # TWICE once, not per event
    store.close()


# -- the keys resting on changed entries ---------------------------------------------------------

@pytest.fixture
def cited(tmp_path):
    """O1 ← S1 ← S2 (one citation each), S3 cited O1 in its first version only, O1 has two
    versions and a twin on its key, X and Y stand apart, GONE (which cited O1) is erased."""
    o1 = entry("O1", attribute="k1")
    s3 = entry("S3", attribute="k4", kind="summary", justification=["O1"])
    events = [(EARLY, "write", o1),
              (EARLY, "write", entry("TWIN", attribute="k1", value="w")),
              (EARLY, "write", entry("S1", attribute="k2", kind="summary", justification=["O1"])),
              (EARLY, "write", entry("S2", attribute="k3", kind="summary", justification=["S1"])),
              (EARLY, "write", s3),
              (EARLY, "write", entry("O2", attribute="k5")),
              (EARLY, "write", entry("X", entity="x", attribute="k6")),
              (EARLY, "write", entry("Y", entity="y", attribute="k1")),
              (EARLY, "write", entry("GONE", entity="g", attribute="k7", subject="user:9",
                                     kind="summary", justification=["O1"])),
              (MID, "update", {**o1, "value": "v2"}),
              (MID, "update", {**s3, "justification": ["O2"]})]
    root = write_store(tmp_path / "s", events)
    store = Store(root, warn=False)
    erase = ACTIONS["erase"]
    erase.apply(store, erase.plan(store, Request("erase", "DSR-1", "dana", ("GONE",))))
    yield store
    store.close()


def keys_of(con, ids):
    B.focus_keys_of(con, ids)
    count = con.execute(sql("focus_keys_count")).fetchone()[0]
    return count, sorted(con.execute("SELECT entity, attribute FROM focus_keys").fetchall())


def test_the_keys_resting_on_changed_entries_each_once(cited):
    # O1's key (its two versions, its twin: one row), S1 and S2 above it, S3 by its first
    # version; not O2 (S3 rests on it, not the other way), not x, y or the erased entry
    assert keys_of(cited.con, ["O1"]) == (4, [("e", "k1"), ("e", "k2"), ("e", "k3"), ("e", "k4")])
    assert keys_of(cited.con, ["S1"]) == (2, [("e", "k2"), ("e", "k3")])
    assert keys_of(cited.con, ["O2", "X"]) == (3, [("e", "k4"), ("e", "k5"), ("x", "k6")])
    assert keys_of(cited.con, ["GONE"]) == (0, [])                     # erased: no key left


def test_judging_one_key_judges_its_entries_and_what_they_rest_on_only(cited):
    tk = t(LATE)
    B.judge_keys(cited.con, tk, [("e", "k3")])
    assert sorted(cited.con.execute("SELECT entity, attribute FROM focus_keys").fetchall()) == [("e", "k3")]
    assert sorted(i for (i,) in cited.con.execute("SELECT memory_id FROM focus_ids").fetchall()) == [
        "O1", "S1", "S2"]
    judged = cited.con.execute("SELECT memory_id, supported, eff_authority FROM judged "
                               "ORDER BY memory_id").fetchall()
    assert judged == [("O1", True, 0), ("S1", True, 0), ("S2", True, 0)]
    B.judge_keys(cited.con, tk, [("e", "k1"), ("y", "k1")])
    assert sorted(i for (i,) in cited.con.execute("SELECT memory_id FROM judged").fetchall()) == [
        "O1", "TWIN", "Y"]


# -- a patch against a rebuild -------------------------------------------------------------------

def wide_entries() -> list[dict]:
    """Two entities, two attributes each, two scopes per key, so that the belief table's
    position order (entity, attribute, scope) is pinned by every part."""
    made = []
    for entity in ("p", "q"):
        for attribute in ("a", "b"):
            for scope in ("t:a", "t:a/u:1"):
                made.append(entry(f"{entity}{attribute}-{scope[-1]}", entity=entity, attribute=attribute,
                                  scope=scope, value=f"{entity}{attribute}{scope}"))
    return made


def test_a_patch_replaces_only_the_changed_keys_and_numbers_the_rows_again(tmp_path):
    made = wide_entries()
    store = Store(write_store(tmp_path / "s", [(EARLY, "write", e) for e in made]), warn=False)
    t0, t1 = t(SINCE), t(TK)
    B.materialize(store.con, B.ViewSpec(None, B.Moment(t0, t0)))
    changed = next(e for e in made if e["id"] == "qa-1")
    draft = event_draft("quarantine", "qa-1", "operator:o", before=changed,
                        after={**changed, "status": "quarantined"})
    draft["at"] = MID
    with LogWriter(store.paths) as writer:
        writer.append([draft])
    store.refresh()
    spec = B.ViewSpec(None, B.Moment(t1, t1))
    assert B.patch(store.con, spec, t0, ["qa-1"]) == 8
    rows = store.con.execute("SELECT pos, entity, attribute, scope, memory_id FROM beliefs "
                             "ORDER BY pos").fetchall()
    assert rows == [(1, "p", "a", "t:a", "pa-a"), (2, "p", "a", "t:a/u:1", "pa-1"),
                    (3, "p", "b", "t:a", "pb-a"), (4, "p", "b", "t:a/u:1", "pb-1"),
                    (5, "q", "a", "t:a", "qa-a"), (6, "q", "a", "t:a/u:1", "qa-a"),   # qa-1 is out
                    (7, "q", "b", "t:a", "qb-a"), (8, "q", "b", "t:a/u:1", "qb-1")]
    # `judged` is scratch: the patch leaves the one key it judged again (both scopes' entries)
    judged = sorted(store.con.execute("SELECT memory_id, status FROM judged").fetchall())
    assert judged == [("qa-1", "quarantined"), ("qa-a", "active")]
    patched = sorted(store.con.execute("SELECT * FROM beliefs").fetchall(), key=repr)
    assert B.materialize(store.con, spec) == 8
    assert sorted(store.con.execute("SELECT * FROM beliefs").fetchall(), key=repr) == patched
    assert store.con.execute("SELECT count(*) FROM judged").fetchone()[0] == 0
    store.close()


@pytest.mark.parametrize("every", [1, 2, 256])
@pytest.mark.parametrize("one_statement", [False, True])
@pytest.mark.parametrize("change, expected", [
    # b and d are new: c moves by 1 and e by 2 (moved a range at a time, e's range must go
    # first, or c, moved to 3, is moved again with it)
    ("new", [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e")]),
    # b and d lose their only row: c moves by -1 and e by -2 (c's range must go first)
    ("gone", [(1, "a"), (2, "c"), (3, "e")]),
])
def test_the_rows_between_changed_keys_move_once_each(tmp_path, monkeypatch, every, one_statement,
                                                     change, expected):
    keys = "acebd" if change == "new" else "abcde"
    made = [entry(k.upper(), entity=k, attribute="k") for k in keys[:3 if change == "new" else 5]]
    store = Store(write_store(tmp_path / "s", [(EARLY, "write", e) for e in made]), warn=False)
    store.con.execute(f"CREATE OR REPLACE MACRO key_fence_every() AS {every}")
    monkeypatch.setattr(B, "SHIFT_RANGES_MAX", 0 if one_statement else 64)
    t0, t1 = t(SINCE), t(TK)
    B.materialize(store.con, B.ViewSpec(None, B.Moment(t0, t0)))
    if change == "new":
        drafts = [event_draft("write", k.upper(), "agent:9", after=entry(k.upper(), entity=k, attribute="k"))
                  for k in "bd"]
    else:
        drafts = [event_draft("quarantine", k.upper(), "operator:o", before=e,
                              after={**e, "status": "quarantined"})
                  for k, e in zip("bd", (made[1], made[3]))]
    for draft in drafts:
        draft["at"] = MID
    with LogWriter(store.paths) as writer:
        writer.append(drafts)
    store.refresh()
    assert B.patch(store.con, B.ViewSpec(None, B.Moment(t1, t1)), t0, ["B", "D"]) == len(expected)
    assert store.con.execute("SELECT pos, entity FROM beliefs ORDER BY pos").fetchall() == expected
    plan = store.con.execute("SELECT entity, before_n, old_n, delta, new_first FROM patch_plan "
                             "ORDER BY entity").fetchall()
    assert plan == ([("b", 1, 0, 1, 2), ("d", 2, 0, 1, 4)] if change == "new" else
                    [("b", 1, 1, -1, 2), ("d", 3, 1, -1, 3)])
    store.close()


def test_a_materialized_table_is_numbered_by_entity_attribute_scope(tmp_path):
    made = wide_entries()
    store = Store(write_store(tmp_path / "s", [(EARLY, "write", e) for e in reversed(made)]), warn=False)
    B.materialize(store.con, B.ViewSpec(None, B.Moment(t(TK), t(TK))))
    assert [(r["pos"], r["memory_id"]) for r in B.all_beliefs(store.con)] == [
        (k + 1, e["id"]) for k, e in enumerate(made)]
    assert [r["memory_id"] for r in B.page(store.con, 3, 4)] == ["pb-a", "pb-1"]
    store.close()


def test_a_patch_of_a_summary_judges_what_it_rests_on_once(tmp_path):
    """The entries a changed key rests on are judged to find its support, but only the changed
    key's rows are left in `judged`, judged as the whole store would judge them."""
    observed = entry("O", entity="p", attribute="z", value="Lyon", authority=2)
    summary = entry("S", entity="q", attribute="c", value="Lyon", kind="summary", justification=["O"],
                    authority=3)
    other = entry("X", entity="r", attribute="x")
    store = Store(write_store(tmp_path / "s", [(EARLY, "write", e) for e in (observed, summary, other)]),
                  warn=False)
    t0, t1 = t(SINCE), t(TK)
    B.materialize(store.con, B.ViewSpec(None, B.Moment(t0, t0)))
    draft = event_draft("update", "S", "agent:9", before=summary, after={**summary, "value": "Paris"})
    draft["at"] = MID
    with LogWriter(store.paths) as writer:
        writer.append([draft])
    store.refresh()
    spec = B.ViewSpec(None, B.Moment(t1, t1))
    assert B.patch(store.con, spec, t0, ["S"]) == 3                   # one row per key
    judged = sorted(store.con.execute("SELECT memory_id, value, supported, eff_authority FROM judged")
                    .fetchall())
    assert judged == [("S", '"Paris"', True, 2)]     # O's authority 2 bounds S's 3
    patched = sorted(store.con.execute("SELECT * FROM beliefs").fetchall(), key=repr)
    assert B.materialize(store.con, spec) == 3
    assert sorted(store.con.execute("SELECT * FROM beliefs").fetchall(), key=repr) == patched
    store.close()
