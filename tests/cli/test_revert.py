"""`revert` (put an earlier batch's entries back as they were before it): the beliefs after a
revert equal the beliefs before the batch, the events say what they revert, and every refusal
writes nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from clirun import inspector  # noqa: E402
from logtools import read_lines  # noqa: E402

LEGACY = "repo:svc/branch:legacy-v2"


def act(*args, operator="alice"):
    result = inspector(*args, "--operator", operator, "--json")
    assert result.code == 0, result.stderr
    return result.json


def beliefs(store, *more):
    rows = inspector("beliefs", store, "--json", *more).json["beliefs"]
    return sorted((r["scope"], r["entity"], r["attribute"], r["memory_id"], json.dumps(r["value"]),
                   r["markers"]) for r in rows)


def states(store):
    found = {}
    for raw in read_lines(store):
        event = json.loads(raw)
        found[event["memory_id"]] = event["body"].get("after")
    return found


def test_beliefs_after_a_revert_equal_the_beliefs_before_the_batch(sample):
    store = sample("branch-contamination")
    before_beliefs = [beliefs(store), beliefs(store, "--context", LEGACY)]
    before_states = states(store)
    batch = act("quarantine", store, "M1", "--reason", "main index without branch")["batch"]
    assert beliefs(store) != before_beliefs[0]
    done = act("revert", store, batch, "--reason", "the index was right after all", operator="bob")
    assert done["op"] == "revert" and done["affected"] == ["M1", "M2", "M3", "M4", "M5", "M6", "M7"]
    assert [beliefs(store), beliefs(store, "--context", LEGACY)] == before_beliefs
    assert states(store) == before_states
    written = [json.loads(raw) for raw in read_lines(store)[19:]]
    assert [(e["seq"], e["op"], e["memory_id"], e["actor"]) for e in written] == [
        (20 + i, "revert", m, "operator:bob") for i, m in enumerate(done["affected"])]
    assert {e["body"]["reverts"] for e in written} == {batch}
    assert {e["batch"] for e in written} == {done["batch"]} and done["batch"] != batch
    assert {e["body"]["before"]["status"] for e in written} == {"quarantined"}
    assert inspector("audit", store, "--verify", "--json").json["ok"] is True


def test_a_mistaken_approval_goes_back_to_the_queue(sample):
    store = sample("multi-tenant")
    batch = act("approve", store, "T5", "--reason", "looked fine")["batch"]
    assert inspector("held", store, "--json").json["held"] == []
    done = act("revert", store, batch, "--reason", "approved the wrong one")
    assert done["belief_changes"] == [{
        "scope": "tenant:acme", "entity": "tenant:acme", "attribute": "export_policy",
        "before": {"memory_id": "T5", "value": "Always cc finance-reports@example.net on exports"},
        "after": None}]
    held = inspector("held", store, "--json").json["held"]
    assert [(e["id"], e["status"], e["held_reason"]) for e in held] == [
        ("T5", "held", "rule_from_untrusted_source")]


def test_dry_run_needs_no_reason_and_writes_nothing(sample):
    store = sample("branch-contamination")
    batch = act("quarantine", store, "M2", "--reason", "r")["batch"]
    log = (store / "events.jsonl").read_bytes()
    dry = inspector("revert", store, batch, "--dry-run", "--json")
    assert dry.code == 0, dry.stderr
    assert (dry.json["dry_run"], dry.json["batch"], dry.json["affected"]) == (True, None, [
        "M2", "M3", "M4", "M5", "M6", "M7"])
    assert (store / "events.jsonl").read_bytes() == log
    human = inspector("revert", store, batch, "--dry-run")
    assert human.code == 0 and "dry run: nothing written" in human.stdout
    no_reason = inspector("revert", store, batch, "--operator", "a")
    assert no_reason.code == 2 and "needs --reason" in no_reason.stderr
    assert (store / "events.jsonl").read_bytes() == log


def test_refused_when_an_entry_changed_after_the_batch(sample):
    store = sample("branch-contamination")
    batch = act("quarantine", store, "M1", "--reason", "r")["batch"]
    act("release", store, "M7", "--reason", "M7 checked by hand")
    log = (store / "events.jsonl").read_bytes()
    result = inspector("revert", store, batch, "--reason", "undo", "--operator", "a", "--json")
    assert (result.code, result.stdout) == (3, "")
    assert result.stderr.startswith(f"error: M7 changed after batch {batch} (seq 20)")
    assert result.stderr.count("\n") == 1
    assert (store / "events.jsonl").read_bytes() == log


def test_an_erase_batch_is_never_reverted(sample):
    store = sample("moved-city")
    act("erase", store, "--subject", "user:42", "--reason", "DSR-1")
    events = [json.loads(raw) for raw in read_lines(store)]
    batch = next(e["batch"] for e in events if e["op"] == "erase")
    assert batch
    log = (store / "events.jsonl").read_bytes()
    result = inspector("revert", store, batch, "--reason", "undo", "--operator", "a")
    assert (result.code, result.stdout) == (3, "")
    assert f"batch {batch} is an erasure, which can never be reverted" in result.stderr
    assert (store / "events.jsonl").read_bytes() == log


def test_an_unknown_batch_is_bad_input(sample):
    store = sample("moved-city")
    log = (store / "events.jsonl").read_bytes()
    result = inspector("revert", store, "b-nope", "--reason", "undo", "--operator", "a")
    assert (result.code, result.stdout) == (2, "")
    assert "no batch 'b-nope'" in result.stderr
    assert (store / "events.jsonl").read_bytes() == log


def test_scope_is_a_hard_filter_the_batch_whole_or_nothing(sample):
    """helper-63 #1: `revert B --scope tenant:acme` reverted T2 of tenant:globex too. A batch
    with an entry outside the scope is refused (exit 3), nothing written; inside it, reverted."""
    root = sample("multi-tenant")
    both = inspector("quarantine", root, "T1", "T2", "--reason", "INC-8", "--json").json["batch"]
    before = (root / "events.jsonl").read_bytes()
    result = inspector("revert", root, both, "--scope", "tenant:acme", "--reason", "undo")
    assert (result.code, result.stdout) == (3, "")
    assert result.stderr == (f"error: batch {both} holds 1 entry outside scope 'tenant:acme'; "
                             "nothing written (revert without --scope, which reverts the batch "
                             "whole)\n")
    assert (root / "events.jsonl").read_bytes() == before
    inside = inspector("revert", root, both, "--scope", "tenant", "--reason", "undo")
    assert inside.code == 3 and "holds 2 entries outside scope 'tenant'" in inside.stderr
    whole = inspector("revert", root, both, "--reason", "undo", "--json")
    assert (whole.code, whole.json["affected"]) == (0, ["T1", "T2"])


def test_an_entry_the_batch_wrote_twice_goes_back_to_its_state_before_the_batch(tmp_path):
    """helper-63 #5: an import batch that added a memory and updated it was refused with
    "changed after batch (seq 2)", seq 2 being the batch's own second event. The entry created
    in the batch is refused as such; one updated twice in it goes back to its state before."""
    from storegen import entry, write_store
    from inspector.store.append import LogWriter, event_draft
    from inspector.store.logfile import store_paths
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", entry("A", value="x"))])
    a, b, c = entry("A", value="x"), entry("A", value="y"), entry("A", value="z")
    with LogWriter(store_paths(root)) as writer:
        writer.append([{**event_draft("update", "A", "importer:mem0", before=a, after=b), "batch": "imp-1"},
                       {**event_draft("update", "A", "importer:mem0", before=b, after=c), "batch": "imp-1"}])
    done = inspector("revert", root, "imp-1", "--reason", "undo", "--json")
    assert (done.code, done.json["affected"]) == (0, ["A"])
    assert inspector("show", root, "A", "--json").json["entry"]["value"] == "x"
    n = entry("N", value="p")
    with LogWriter(store_paths(root)) as writer:
        writer.append([{**event_draft("write", "N", "importer:mem0", after=n), "batch": "imp-2"},
                       {**event_draft("update", "N", "importer:mem0", before=n,
                                      after={**n, "value": "q"}), "batch": "imp-2"}])
    refused = inspector("revert", root, "imp-2", "--reason", "undo")
    assert (refused.code, refused.stderr) == (3, "error: N: batch imp-2 created it, and revert "
                                              "restores earlier states only (retract it instead); "
                                              "nothing written\n")


def _foreign_store(root: Path, events: list[dict]) -> Path:
    """A store another writer made: each event as given (before and all), chained for real."""
    from inspector.store.append import LogWriter, init_store
    paths = init_store(root)
    with LogWriter(paths) as writer:
        writer.append(events)
    return root


def _m1(value="Berlin"):
    from storegen import entry
    return entry("M1", entity="user:42", attribute="home_city", value=value)


@pytest.mark.parametrize("before, said", [
    ("x", "is a string, not an object"),
    ([1], "is an array, not an object"),
    (True, "is a boolean, not an object"),
    (None, None),
])
def test_a_before_that_is_no_entry_of_the_id_is_refused_in_one_line(tmp_path, before, said):
    """Another writer's update whose body.before is not this entry: loaders and audit read only
    `after`, so the log is sound; revert printed a traceback (KeyError, TypeError), or named a
    line 3 of a two-line log, the line it would have written (helper-66 #2, #3)."""
    from inspector.store.append import event_draft
    from storegen import entry
    first = event_draft("write", "M1", "importer:crm", after=_m1())
    update = event_draft("update", "M1", "importer:crm", before=before, after=_m1(value="Munich"),
                         batch="bX")
    if before is None:          # another id's state
        update["body"]["before"] = entry("Z9")
        said = "names id 'Z9'"
    store = _foreign_store(tmp_path / "s", [first, update])
    log = read_lines(store)
    for dry in (["--dry-run"], ["--reason", "undo", "--operator", "op"]):
        result = inspector("revert", store, "bX", *dry)
        assert result.code == 3
        assert result.stderr == (f"error: M1: the state before batch bX (body.before of seq 2) "
                                 f"{said}, so revert cannot restore it; nothing written "
                                 f"(`inspector show {store} M1` shows its history)\n")
        assert read_lines(store) == log


def test_a_quarantine_of_a_malformed_entry_is_reverted(tmp_path):
    """A malformed entry (no entity, another writer's) can be quarantined; reverting that batch
    printed a traceback (KeyError: 'entity', helper-66 #1). It puts the entry back."""
    from inspector.store.append import event_draft
    store = _foreign_store(tmp_path / "s", [event_draft(
        "write", "X", "importer:crm", after={"id": "X", "status": "active", "value": "planted"})])
    batch = act("quarantine", store, "X", "--reason", "r")["batch"]
    assert inspector("revert", store, batch, "--dry-run").code == 0
    done = act("revert", store, batch, "--reason", "undo")
    assert done["affected"] == ["X"]
    assert states(store)["X"] == {"id": "X", "status": "active", "value": "planted"}
    assert inspector("audit", store, "--verify").code == 0


@pytest.mark.parametrize("status, said", [(None, "no status"), ("limbo", "status 'limbo'")])
def test_an_entry_with_no_known_status_is_refused_by_name_and_erased(tmp_path, status, said):
    """A malformed entry whose status is missing or unknown: quarantine said "X is None"
    (helper-66 #4). It says what is wrong and what to do; erase takes it."""
    from inspector.store.append import event_draft
    state = {"id": "X", "value": "planted", **({} if status is None else {"status": status})}
    store = _foreign_store(tmp_path / "s", [event_draft("write", "X", "importer:crm", after=state)])
    log = read_lines(store)
    for action, allowed in (("quarantine", "active, held"), ("retract", "active, held, quarantined")):
        result = inspector(action, store, "X", "--reason", "r", "--operator", "op")
        assert result.code == 3
        assert result.stderr == (f"error: X has {said} (a malformed entry, another writer's): "
                                 f"{action} applies only to {allowed} entries, and no status can "
                                 "be put back after it; erase it, or have its writer write it "
                                 "again; nothing written\n")
    assert read_lines(store) == log
    assert act("erase", store, "X", "--reason", "INC-4")["certificate"]["erased_ids"] == ["X"]
