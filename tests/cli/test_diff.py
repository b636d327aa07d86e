"""`diff` (what changed between two times, and what made it): exact changes and causes on
hand-built stores, agreement with `beliefs --as-of` at both times, and the human output."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from clirun import inspector  # noqa: E402
from storegen import entry  # noqa: E402
from inspector.store.append import LogWriter, event_draft, init_store  # noqa: E402

LEGACY = "repo:svc/branch:legacy-v2"


def build(root: Path, events: list[tuple]) -> Path:
    """events: (at, op, after[, actor, batch, reason]) in order; before is the previous after."""
    paths = init_store(root)
    states, drafts = {}, []
    for at, op, after, *rest in events:
        actor, batch, reason = (list(rest) + ["agent:1", None, None])[:3] if rest else ("agent:1", None, None)
        draft = event_draft(op, after["id"], actor, before=states.get(after["id"]), after=after,
                            reason=reason, batch=batch)
        draft["at"] = at
        states[after["id"]] = after
        drafts.append(draft)
    with LogWriter(paths) as writer:
        writer.append(drafts)
    return root


def day(hour: str) -> str:
    return f"2025-06-01T{hour}Z"


@pytest.fixture
def incident(tmp_path):
    """01:00 O1 believed; 02:00 O2 outranks it; 03:00 summary S1 rests on O2; 03:30 an
    unrelated key; 04:00 O2 quarantined (S1 loses its support, O1 is back); 05:00 a claim C1
    disagrees with O1. V1 is valid until 04:30 and no event ends it."""
    o1 = entry("O1", value="v1", authority=1, observed_at=day("01:00:00"))
    o2 = entry("O2", value="v2", authority=2, observed_at=day("02:00:00"), source="tool:u")
    s1 = entry("S1", attribute="sum", value="v2", kind="summary", authority=2,
               observed_at=day("03:00:00"), justification=["O2"])
    v1 = entry("V1", attribute="valid", value="until 04:30", observed_at=day("01:00:00"),
               valid_to=day("04:30:00"))
    x1 = entry("X1", entity="k", attribute="x", value=1, observed_at=day("03:30:00"))
    c1 = entry("C1", value="other", kind="claim", observed_at=day("05:00:00"), source="web:w")
    return build(tmp_path / "s", [
        (day("01:00:00"), "write", o1), (day("01:00:01"), "write", v1),
        (day("02:00:00"), "write", o2), (day("03:00:00"), "write", s1),
        (day("03:30:00"), "write", x1),
        (day("04:00:00"), "quarantine", {**o2, "status": "quarantined"}, "operator:alice",
         "b-q1", "wrong tool"),
        (day("05:00:00"), "write", c1)])


def diff(store, *args):
    result = inspector("diff", store, *args, "--json")
    assert result.code == 0, result.stderr
    return result.json


def cause(seq, at, op, memory_id, actor="agent:1", batch=None, reason=None):
    return {"seq": seq, "at": at, "actor": actor, "op": op, "memory_id": memory_id,
            "batch": batch, "reason": reason}


def test_exact_changes_and_causes(incident):
    doc = diff(incident, "--from", day("03:30:00"), "--to", day("05:30:00"))
    assert (doc["from"], doc["to"], doc["context"]) == (day("03:30:00"), day("05:30:00"), None)
    quarantine = cause(6, day("04:00:00"), "quarantine", "O2", "operator:alice", "b-q1", "wrong tool")
    assert doc["changes"] == [
        {"scope": "", "entity": "e", "attribute": "a",
         "before": {"memory_id": "O2", "value": "v2"}, "after": {"memory_id": "O1", "value": "v1"},
         "markers_before": [], "markers_after": ["claim_disagrees"],
         "causes": [quarantine, cause(7, day("05:00:00"), "write", "C1")], "causes_truncated": False},
        {"scope": "", "entity": "e", "attribute": "sum",
         "before": {"memory_id": "S1", "value": "v2"}, "after": None,
         "markers_before": [], "markers_after": [], "causes": [quarantine], "causes_truncated": False},
        {"scope": "", "entity": "e", "attribute": "valid",
         "before": {"memory_id": "V1", "value": "until 04:30"}, "after": None,
         "markers_before": [], "markers_after": [], "causes": [], "causes_truncated": False}]


def test_the_window_is_open_at_from_and_closed_at_to(incident):
    at_x1 = diff(incident, "--from", day("03:00:00"), "--to", day("03:30:00"))["changes"]
    assert [(c["entity"], c["after"]["memory_id"], [x["seq"] for x in c["causes"]]) for c in at_x1] == [
        ("k", "X1", [5])]
    assert diff(incident, "--from", day("03:30:00"), "--to", day("03:59:59"))["changes"] == []


def test_causes_reach_what_a_new_belief_rests_on(incident):
    doc = diff(incident, "--from", day("01:30:00"), "--to", day("03:00:00"))
    by_key = {c["attribute"]: c for c in doc["changes"]}
    assert sorted(by_key) == ["a", "sum"]
    assert (by_key["a"]["before"]["memory_id"], by_key["a"]["after"]["memory_id"]) == ("O1", "O2")
    assert [x["seq"] for x in by_key["a"]["causes"]] == [3]
    assert [(x["seq"], x["memory_id"]) for x in by_key["sum"]["causes"]] == [(3, "O2"), (4, "S1")]


def test_to_defaults_to_now_and_context_answers_for_one_scope(tmp_path):
    broad = entry("B", value="broad", scope="tenant:t", observed_at=day("01:00:00"))
    narrow = entry("N", value="narrow", scope="tenant:t/user:u", observed_at=day("02:00:00"))
    store = build(tmp_path / "s", [(day("01:00:00"), "write", broad), (day("02:00:00"), "write", narrow)])
    doc = diff(store, "--from", day("01:30:00"), "--context", "tenant:t/user:u")
    assert doc["context"] == "tenant:t/user:u" and doc["to"] > "2025-06-01T02"
    assert [(c["scope"], c["before"]["memory_id"], c["after"]["memory_id"]) for c in doc["changes"]] == [
        ("tenant:t/user:u", "B", "N")]
    store_wide = diff(store, "--from", day("01:30:00"))["changes"]
    assert [(c["scope"], c["before"], c["after"]["memory_id"]) for c in store_wide] == [
        ("tenant:t/user:u", None, "N")]


def beliefs_at(store, moment, *more):
    rows = inspector("beliefs", store, "--as-of", moment, "--json", *more).json["beliefs"]
    return {(r["scope"], r["entity"], r["attribute"]): (r["memory_id"], r["value"], r["markers"])
            for r in rows}


@pytest.mark.parametrize("context", [None, LEGACY])
def test_diff_is_the_difference_of_the_belief_tables(sample, context):
    """After a quarantine and a release, the changes are exactly the rows in which the two
    belief tables differ (by the same rule), for the store-wide table and one context."""
    store = sample("branch-contamination")
    first = inspector("quarantine", store, "M1", "--reason", "r", "--operator", "a", "--json").json
    inspector("release", store, "M7", "--reason", "r", "--operator", "a", "--json")
    more = ("--context", context) if context else ()
    t1 = "2025-03-01T04:06:20Z"
    t2 = inspector("audit", store, "--log", "--json").json["events"][-1]["at"]
    before, after = beliefs_at(store, t1, *more), beliefs_at(store, t2, *more)
    doc = diff(store, "--from", t1, "--to", t2, *more)
    expected = sorted((k for k in set(before) | set(after) if before.get(k) != after.get(k)),
                      key=lambda k: (k[1], k[2], k[0]))
    assert [(c["scope"], c["entity"], c["attribute"]) for c in doc["changes"]] == expected
    for change in doc["changes"]:
        key = (change["scope"], change["entity"], change["attribute"])
        for side, table in (("before", before), ("after", after)):
            row = table.get(key)
            assert change[side] == (row and {"memory_id": row[0], "value": row[1]})
        seqs = [c["seq"] for c in change["causes"]]
        assert seqs == sorted(seqs) and all(c["at"] > t1 for c in change["causes"])
    timeout_repair = next(c for c in doc["changes"] if c["attribute"] == "timeout_repair")
    assert {c["batch"] for c in timeout_repair["causes"]} >= {first["batch"]}


def test_bad_windows_are_one_line_errors(incident):
    backwards = inspector("diff", incident, "--from", day("05:00:00"), "--to", day("04:00:00"))
    assert (backwards.code, backwards.stdout) == (2, "")
    assert backwards.stderr.startswith("error: --from 2025-06-01T05:00:00Z is after --to")
    assert inspector("diff", incident, "--from", "yesterday").code == 2
    assert inspector("diff", incident).code == 2                    # --from is required


def test_human_output_shows_whole_ids_and_the_causes(tmp_path):
    long_id = "entry-" + "x" * 70
    store = build(tmp_path / "s", [
        (day("01:00:00"), "write", entry(long_id, value="v" * 300, observed_at=day("01:00:00")))])
    result = inspector("diff", store, "--from", day("00:00:00"), env={"COLUMNS": "80"})
    assert result.code == 0, result.stderr
    assert long_id in result.stdout
    assert "v" * 300 not in result.stdout
    lines = result.stdout.splitlines()
    assert lines[0].startswith("1 belief change from 2025-06-01T00:00:00Z to ")
    seq_line = next(line for line in lines[1:] if line.startswith("1 "))
    assert seq_line.split()[:3] == ["1", day("01:00:00"), "write"] and long_id in seq_line
    wide = inspector("diff", store, "--from", day("00:00:00"), "--wide", env={"COLUMNS": "80"})
    assert "v" * 300 in wide.stdout


def test_secret_values_are_masked_unless_revealed(tmp_path):
    key = "sk-live-ABCDEF1234567890abcdefGHIJKL"
    store = build(tmp_path / "s", [
        (day("01:00:00"), "write", entry("K", attribute="api_key", value=key, observed_at=day("01:00:00"))),
        (day("01:00:01"), "write", entry("P", attribute="pin", value="0417", sensitivity="secret",
                                         observed_at=day("01:00:00")))])
    masked = inspector("diff", store, "--from", day("00:00:00"), env={"COLUMNS": "200"})
    assert key not in masked.stdout and "0417" not in masked.stdout
    assert f"sk-l…[{len(key)} chars]" in masked.stdout and "…[4 chars]" in masked.stdout
    shown = inspector("diff", store, "--from", day("00:00:00"), "--reveal-secrets", env={"COLUMNS": "200"})
    assert key in shown.stdout and "0417" in shown.stdout
    assert {c["after"]["value"] for c in diff(store, "--from", day("00:00:00"))["changes"]} == {key, "0417"}


def test_a_diff_across_an_erasure_says_what_was_erased(sample):
    """Across an erasure of user:42 (6 entries), `diff` said "0 belief changes" and nothing
    more, though the agent no longer believed any of it (helper-78): erasure takes an entry
    out of every time, so the diff counts the entries erased in its window and names the
    certificate. A window before the erasure counts none."""
    store = sample("moved-city")
    erased = inspector("erase", store, "--subject", "user:42", "--reason", "DSR-1",
                       "--operator", "ana", "--json").json
    cert = erased["certificate"]["id"]
    at = [e for e in map(json.loads, (store / "events.jsonl").read_text().splitlines())
          if e["op"] == "erase"][0]["at"]
    doc = inspector("diff", store, "--from", "2026-01-01T00:00:00Z", "--json").json
    assert (doc["changes"], doc["erased"], doc["certificates"]) == ([], 6, [cert])
    before = inspector("diff", store, "--from", "2026-01-01T00:00:00Z", "--to",
                       "2026-01-02T00:00:00Z", "--json").json
    assert (before["erased"], before["certificates"]) == (0, [])
    text = inspector("diff", store, "--from", "2026-01-01T00:00:00Z").stdout
    assert (f"6 entries erased in this window (certificate {cert}): erasure takes an entry out "
            "of every time, so what it held is on neither side of this diff") in text
    assert at > "2026-01-02"
