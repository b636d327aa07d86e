"""Curation actions (DESIGN §5): plan, dry run, apply, cascade, refusals — asserted on the log."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from clirun import inspector  # noqa: E402
from logtools import read_lines  # noqa: E402
from storegen import entry  # noqa: E402
from inspector.store.append import LogWriter, event_draft  # noqa: E402
from inspector.store.logfile import store_paths  # noqa: E402

LEGACY = "repo:svc/branch:legacy-v2"
CHAIN = ["M1", "M2", "M3", "M4", "M5", "M6", "M7"]


def act(*args, operator="alice"):
    return inspector(*args, "--operator", operator, "--json")


def events(store, first=1):
    return [json.loads(l) for l in read_lines(store)[first - 1:]]


def test_quarantine_cascades_and_writes_one_batch(sample):
    store = sample("branch-contamination")
    result = act("quarantine", store, "M1", "--reason", "main index without branch")
    assert result.code == 0, result.stderr
    doc = result.json
    assert doc["affected"] == CHAIN and doc["skipped"] == [] and doc["seqs"] == list(range(13, 20))
    new = events(store, 13)
    assert [(e["seq"], e["op"], e["memory_id"], e["body"]["after"]["status"]) for e in new] == [
        (13 + i, "quarantine", m, "quarantined") for i, m in enumerate(CHAIN)]
    assert {e["batch"] for e in new} == {doc["batch"]}
    assert {e["actor"] for e in new} == {"operator:alice"}
    assert {e["body"]["reason"] for e in new} == {"main index without branch"}
    assert new[0]["body"]["before"]["status"] == "active"
    assert [(c["scope"], c["attribute"], c["before"]["memory_id"], c["after"]) for c in doc["belief_changes"]] == [
        (LEGACY, "repair_guidance", "M6", None), ("repo:svc", "timeout_config", "M1", None),
        (LEGACY, "timeout_key", "M2", None), (LEGACY, "timeout_repair", "M7", None)]
    after = inspector("beliefs", store, "--json", "--context", LEGACY).json["beliefs"]
    assert sorted(b["memory_id"] for b in after) == ["M0", "M10", "M8", "M9"]
    assert inspector("audit", store, "--verify", "--json").json["ok"] is True


@pytest.mark.parametrize("flag", ["--source", "--principal"])
def test_an_empty_selector_is_refused_not_ignored(sample, flag):
    # beside an id, --source '' was dropped and the action applied; alone it was refused as
    # 'needs at least one id or a selector', though one was given
    store = sample("branch-contamination")
    before = (store / "events.jsonl").read_bytes()
    for args in (("M11", flag, ""), (flag, "")):
        result = act("approve", store, *args, "--reason", "r")
        assert result.code == 2
        assert result.stderr.startswith(f"error: {flag} '' names nothing; give one (e.g. {flag} ")
    assert (store / "events.jsonl").read_bytes() == before


def test_a_dry_run_given_no_reason_has_a_null_reason_in_json(sample):
    # the JSON carried the planner's placeholder, "(dry run: no reason given)", as if given
    store = sample("moved-city")
    assert act("quarantine", store, "H1", "--dry-run").json["reason"] is None
    assert act("erase", store, "--subject", "user:42", "--dry-run").json["certificate"]["reason"] is None
    assert act("quarantine", store, "H1", "--dry-run", "--reason", "INC-7").json["reason"] == "INC-7"


def test_dry_run_writes_nothing_and_shows_what_applying_writes(sample):
    store = sample("branch-contamination")
    before = (store / "events.jsonl").read_bytes()
    dry = act("quarantine", store, "M2", "--reason", "r", "--dry-run").json
    assert (store / "events.jsonl").read_bytes() == before
    assert (dry["dry_run"], dry["batch"], dry["seqs"]) == (True, None, [])
    done = act("quarantine", store, "M2", "--reason", "r").json
    for key in ("affected", "skipped", "belief_changes", "events", "op", "reason", "operator"):
        assert dry[key] == done[key], key
    written = events(store, 13)
    assert [(e["memory_id"], e["op"], e["body"]["before"]["status"], e["body"]["after"]["status"])
            for e in written] == [(x["memory_id"], x["op"], x["from"], x["to"]) for x in dry["events"]]


def test_no_cascade_changes_one_entry_but_reports_what_loses_support(sample):
    store = sample("branch-contamination")
    doc = act("quarantine", store, "M1", "--reason", "r", "--no-cascade").json
    assert doc["affected"] == ["M1"]
    changed = {(c["scope"], c["attribute"]): c for c in doc["belief_changes"]}
    assert changed[(LEGACY, "timeout_key")]["after"] is None       # M2 lost its support
    assert changed[(LEGACY, "timeout_repair")]["after"] is None


def test_approve_and_reject_held_writes(sample):
    store = sample("multi-tenant")
    approved = act("approve", store, "T5", "--reason", "confirmed with finance")
    assert approved.code == 0
    assert approved.json["belief_changes"] == [{
        "scope": "tenant:acme", "entity": "tenant:acme", "attribute": "export_policy", "before": None,
        "after": {"memory_id": "T5", "value": "Always cc finance-reports@example.net on exports"}}]
    last = events(store)[-1]
    assert (last["op"], last["body"]["after"]["status"]) == ("approve", "active")
    store2 = sample("branch-contamination")
    rejected = act("reject", store2, "M11", "--reason", "planted by a forum post")
    assert rejected.json["affected"] == ["M11"] and rejected.json["belief_changes"] == []
    assert events(store2)[-1]["body"]["after"]["status"] == "rejected"


@pytest.mark.parametrize("args, message", [
    (["approve", "T1"], "T1 is active: approve applies only to held entries; nothing written"),
    (["release", "T1"], "T1 is active: release applies only to quarantined entries; nothing written"),
    (["expire", "T5"], "T5 is held: expire applies only to active entries; nothing written"),
])
def test_illegal_transitions_are_refused_and_write_nothing(sample, args, message):
    store = sample("multi-tenant")
    before = (store / "events.jsonl").read_bytes()
    result = act(args[0], store, *args[1:], "--reason", "r")
    assert (result.code, result.stdout) == (3, "")
    assert result.stderr == f"error: {message}\n"
    assert (store / "events.jsonl").read_bytes() == before


@pytest.mark.parametrize("args, code, fragment", [
    (["quarantine", "M1", "--reason", "  "], 2, "--reason is required and must not be empty"),
    (["quarantine", "--reason", "r"], 2, "`quarantine` needs at least one id or a selector"),
    (["quarantine", "NOPE", "--reason", "r"], 2, "NOPE: not found in"),
    (["quarantine", "--principal", "web:nowhere", "--reason", "r"], 3, "nothing to quarantine"),
])
def test_bad_requests(sample, args, code, fragment):
    store = sample("branch-contamination")
    result = act(args[0], store, *args[1:])
    assert result.code == code and fragment in result.stderr
    assert len(read_lines(store)) == 12


def test_release_restores_and_cascade_follows_the_batch(sample):
    store = sample("branch-contamination")
    act("quarantine", store, "M1", "--reason", "r")
    one = act("release", store, "M1", "--reason", "false alarm").json
    assert one["affected"] == ["M1"] and events(store)[-1]["body"]["after"]["status"] == "active"
    act("quarantine", store, "M1", "--reason", "r2", "--no-cascade")
    all_ = act("release", store, "M1", "--reason", "false alarm", "--cascade").json
    # M2..M7 were quarantined by the first batch, not by M1's latest one: only M1 is released
    assert all_["affected"] == ["M1"]


def test_release_cascade_releases_what_the_same_batch_quarantined(sample):
    store = sample("branch-contamination")
    act("quarantine", store, "M1", "--reason", "r")
    doc = act("release", store, "M1", "--reason", "false alarm", "--cascade").json
    assert doc["affected"] == CHAIN
    assert {e["body"]["after"]["status"] for e in events(store, 20)} == {"active"}


def test_retract_always_cascades_and_skips_what_it_cannot_change(sample):
    store = sample("branch-contamination")
    act("reject", store, "M11", "--reason", "r")
    act("expire", store, "M6", "--reason", "stale")
    doc = act("retract", store, "M2", "--reason", "laundered").json
    assert doc["affected"] == ["M2", "M3", "M4", "M5", "M7"]
    assert doc["skipped"] == ["M6"] and doc["skipped_status"] == {"M6": "expired"}


def test_selectors_match_in_allowed_statuses_and_skip_the_rest(sample):
    store = sample("branch-contamination")
    act("quarantine", store, "M2", "--reason", "r", "--no-cascade")
    doc = act("quarantine", store, "--principal", "agent:427", "--reason", "r", "--no-cascade").json
    assert doc["affected"] == ["M3", "M4", "M5", "M6", "M7"]
    assert doc["skipped_status"] == {"M2": "quarantined"}


def test_expire_due(sample):
    store = sample("multi-tenant")
    with LogWriter(store_paths(store)) as writer:
        writer.append([event_draft("write", "T9", "agent:1", after=entry(
            "T9", entity="user:alice", attribute="otp", scope="tenant:acme/user:alice",
            expires_at="2025-01-01T00:00:00Z"))])
    doc = act("expire", store, "--due", "--reason", "decay job").json
    assert doc["affected"] == ["T9"] and events(store)[-1]["body"]["after"]["status"] == "expired"


def test_scope_limits_selectors_and_refuses_a_cascade_that_leaves_it(sample):
    store = sample("branch-contamination")
    result = act("quarantine", store, "M1", "--scope", "repo:svc/branch:main", "--reason", "r")
    assert result.code == 2 and "M1: not found in" in result.stderr
    refused = act("quarantine", store, "M1", "--scope", "repo:svc", "--reason", "r")
    assert refused.code == 0          # every descendant lies inside repo:svc
    store2 = sample("report-language")
    out = act("quarantine", store2, "L2", "--scope", "tenant:acme/user:42/project:P", "--reason", "r")
    assert out.code == 3
    assert out.stderr == ("error: the cascade reaches 1 entries outside scope "
                          "'tenant:acme/user:42/project:P'; nothing written (act without --scope, "
                          "or with --no-cascade)\n")


def test_operator_comes_from_the_environment(sample):
    store = sample("multi-tenant")
    result = inspector("approve", store, "T5", "--reason", "ok", "--json", env={"INSPECTOR_OPERATOR": "bob"})
    assert result.json["operator"] == "bob" and events(store)[-1]["actor"] == "operator:bob"
    bad = inspector("approve", store, "T5", "--reason", "ok", "--operator", "bob smith")
    assert bad.code == 2 and "operator name 'bob smith'" in bad.stderr


def test_apply_refuses_when_the_log_changed_the_plan(sample):
    from inspector.store.actions import Request
    from inspector.store.registry import apply, plan as make_plan
    from inspector.store.errors import Refused
    from inspector.store.load import Store
    root = sample("branch-contamination")
    store = Store(root, warn=False)
    plan = make_plan(store, Request("quarantine", "r", "alice", ("M1",)))
    with LogWriter(store_paths(root)) as writer:        # an agent writes meanwhile, elsewhere
        writer.append([event_draft("write", "Z1", "agent:1", after=entry("Z1", entity="other"))])
    applied = apply(store, plan)
    assert applied.affected == CHAIN and applied.seqs == list(range(14, 21))
    plan2 = make_plan(store, Request("release", "r", "alice", ("M1",), cascade=True))
    with LogWriter(store_paths(root)) as writer:        # ... and this time touches the plan
        state = {**json.loads(read_lines(root)[-1])["body"]["after"]}
        writer.append([event_draft("retract", "M7", "operator:bob", before=state,
                                   after={**state, "status": "retracted"}, reason="x")])
    with pytest.raises(Refused, match="store changed; review again"):
        apply(store, plan2)
    assert len(read_lines(root)) == 21


def test_an_action_by_id_names_the_ids_spelled_otherwise_and_takes_only_the_one_given(tmp_path):
    """`M-café` in NFC and in NFD are drawn alike: a reviewer who typed the id of the held entry
    they had read approved the other one without a word (hostile5 #2). The plan names it now,
    escaped; an id typed that only its twin has is not found, and the error names the twin."""
    from storegen import write_store
    nfc, nfd = "M-caf\u00e9", "M-cafe\u0301"
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "hold", entry(
        m, entity="acct", attribute=f"a{i}", status="held", held_reason="secret"))
        for i, m in enumerate([nfc, nfd])])
    done = inspector("approve", root, nfc, "--reason", "checked", "--operator", "alice", "--json")
    assert done.code == 0 and done.json["affected"] == [nfc]
    assert done.stderr == ("warning: 1 other entry has an id that reads as one given but spelled "
                           "otherwise (case, width, Unicode form, spaces or invisible characters), "
                           "and this approve does not take it: 'M-cafe\\u0301'; check which entry "
                           "you meant (`inspector show STORE ID`)\n")
    missing = inspector("reject", root, "M-CAFE\u0301", "--reason", "checked", "--operator", "alice")
    assert missing.code == 2 and "an id spelled otherwise: 'M-cafe\\u0301'" in missing.stderr
