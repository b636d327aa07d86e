"""`audit --log`: the events themselves, filtered by time (both ends inclusive) and entry, as
JSON and as a table whose ids and times are never cut."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from clirun import inspector  # noqa: E402


def log(store, *args):
    result = inspector("audit", store, "--log", *args, "--json")
    assert result.code == 0, result.stderr
    return result.json


def test_every_event_in_seq_order_with_its_envelope_and_reason(sample):
    store = sample("branch-contamination")
    batch = inspector("quarantine", store, "M2", "--reason", "wrong branch", "--operator", "alice",
                      "--json").json["batch"]
    doc = log(store)
    assert (doc["since"], doc["until"], doc["memory_id"]) == (None, None, None)
    assert [e["seq"] for e in doc["events"]] == list(range(1, 19))
    assert doc["events"][0] == {"seq": 1, "at": "2025-03-01T04:05:10Z", "actor": "agent:427",
                                "op": "write", "memory_id": "M9", "batch": None, "reason": None}
    assert doc["events"][11]["op"] == "hold"
    assert [(e["op"], e["memory_id"], e["actor"], e["batch"], e["reason"]) for e in doc["events"][12:]] == [
        ("quarantine", m, "operator:alice", batch, "wrong branch") for m in ("M2", "M3", "M4", "M5", "M6", "M7")]


def test_since_and_until_are_inclusive_and_memory_narrows(sample):
    store = sample("branch-contamination")
    window = log(store, "--since", "2025-03-01T04:06:05Z", "--until", "2025-03-01T04:06:17Z")
    assert [(e["seq"], e["memory_id"]) for e in window["events"]] == [
        (3, "M1"), (4, "M2"), (5, "M3"), (6, "M5")]
    assert (window["since"], window["until"]) == ("2025-03-01T04:06:05Z", "2025-03-01T04:06:17Z")
    offset = log(store, "--since", "2025-03-01T05:06:50+01:00")
    assert [e["seq"] for e in offset["events"]] == [10, 11, 12]
    inspector("quarantine", store, "M3", "--no-cascade", "--reason", "r", "--operator", "a", "--json")
    m3 = log(store, "--memory", "M3")
    assert [(e["seq"], e["op"]) for e in m3["events"]] == [(5, "write"), (13, "quarantine")]
    assert log(store, "--memory", "M3", "--until", "2025-03-01T04:06:16Z")["events"][0]["seq"] == 5
    assert log(store, "--since", "2030-01-01T00:00:00Z")["events"] == []


def test_an_erased_entry_keeps_its_envelope_and_loses_its_reasons(sample):
    store = sample("moved-city")
    inspector("quarantine", store, "H4", "--reason", "moved", "--operator", "a", "--json")
    inspector("erase", store, "--subject", "user:42", "--reason", "DSR-7", "--operator", "a", "--json")
    events = log(store, "--memory", "H4")["events"]
    assert [e["op"] for e in events] == ["write", "quarantine", "erase"]
    assert [e["reason"] for e in events] == [None, None, "DSR-7"]


def test_the_table_shows_whole_ids_times_and_batches_at_80_columns(sample):
    store = sample("branch-contamination")
    batch = inspector("quarantine", store, "M1", "--reason", "main index without a branch field",
                      "--operator", "alice", "--json").json["batch"]
    result = inspector("audit", store, "--log", "--since", "2025-03-01T04:06:50Z", env={"COLUMNS": "80"})
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["SEQ", "AT", "OP", "ID", "ACTOR", "BATCH", "REASON"]
    rows = [line.split() for line in lines[1:-1]]
    assert [r[:4] for r in rows[:3]] == [["10", "2025-03-01T04:06:50Z", "write", "M7"],
                                         ["11", "2025-03-01T04:06:52Z", "write", "M10"],
                                         ["12", "2025-03-01T04:06:53Z", "hold", "M11"]]
    assert [r[5] for r in rows[3:]] == [batch] * 7
    assert lines[-1] == "10 events since 2025-03-01T04:06:50Z"
    wide = inspector("audit", store, "--log", "--wide", env={"COLUMNS": "80"})
    assert "main index without a branch field" in wide.stdout


@pytest.mark.parametrize("args, message", [
    (["--log", "--verify"], "--log lists events; --verify and --expect-head check the chain"),
    (["--since", "2025-01-01T00:00:00Z"], "--since, --until and --memory filter the event list: add --log"),
    (["--log", "--memory", "NOPE"], "NOPE: no event in the log names it"),
    (["--log", "--since", "monday"], "--since: 'monday' is not an RFC 3339 time"),
    (["--log", "--since", "2025-03-02T00:00:00Z", "--until", "2025-03-01T00:00:00Z"],
     "--since 2025-03-02T00:00:00Z is after --until 2025-03-01T00:00:00Z"),
    (["--log", "--scope", "repo:svc"], "`audit` works on the whole store and does not take --scope"),
])
def test_bad_usage_is_one_line_and_exit_2(sample, args, message):
    result = inspector("audit", sample("branch-contamination"), *args, "--json")
    assert (result.code, result.stdout) == (2, "")
    assert message in result.stderr and result.stderr.count("\n") == 1
