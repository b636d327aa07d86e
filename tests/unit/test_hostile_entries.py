"""Hostile entries (issue: a store the tool accepted can always be curated and erased).

Every value here once made the store unopenable or a command print a traceback. Now: the
writers refuse them (exit 2, line and field named, nothing written); a foreign writer's line
carrying one loads as a *malformed* entry — never a belief, listed by scan, curatable — and
the loader's SQL judges entries exactly as `contract.entry_problem` does (differential test).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from inspector.store import contract, jsonsafe, strictscan
from inspector.store.actions import Request
from inspector.store.append import LogWriter, event_draft, init_store
from inspector.store.load import Store
from inspector.store.logfile import store_paths
from inspector.store.registry import apply, plan
from logtools import edit_line
from storegen import deep, entry



HOSTILE = {
    "observed_at": ["2026-02-30T00:00:00Z", "2026-13-45T25:61:61Z", "0000-01-01T00:00:00+23:59",
                    "0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59",
                    "2025-01-01T00:00:00+24:00", "2016-12-31T23:59:60Z", "2025-01-01T24:00:00Z",
                    "2025-01-01T00:00:00+00:60", "2025-01-01T00:00:00-05:99", "yesterday"],
    "authority": [2 ** 63, 10 ** 30, 2 ** 31, -(2 ** 31) - 1, 1.5, "3", True],
    "confidence": [2, -0.1, "high", math.inf],
    "value": [math.inf, -math.inf, math.nan, deep(65), deep(3000), {"a": [math.inf]}],
    "kind": ["rumour", 7],
    "status": ["weird"],
    "scope": [5, ["a"], "/".join(["s:1"] * 33), "/".join(f"s:{i}" for i in range(6000)),
              "a//b", "/a", "a/", "/"],          # an empty segment: no --scope names it
    "tags": [[1, 2], "x", [""]],
    "justification": [["ok", 3], "M1"],
    "entity": ["", 12],
    "source": ["nobody", "web:"],
    "layer": ["dream"],
    "valid_to": ["2025-02-29T00:00:00Z"],
}
CASES = [(f, v) for f, values in HOSTILE.items() for v in values]
IDS = [f"{f}-{i}" for i, (f, _) in enumerate(CASES)]     # repr of a 3000-deep list recurses


def write_raw(root: Path, states: list[dict]) -> None:
    """A foreign writer: chained lines the project's own writers would refuse."""
    paths = init_store(root)
    with LogWriter(paths) as writer:
        writer.append([event_draft("write", s["id"], "agent:x", after=s) for s in states])


def inspector(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("field,value", CASES, ids=IDS)
def test_a_malformed_entry_loads_is_never_believed_and_is_found(tmp_path, field, value):
    bad = {**entry("M1", "svc", "k", "bad"), field: value}
    write_raw(tmp_path / "s", [bad, entry("M2", "svc", "k", "good", authority=0)])
    store = Store(tmp_path / "s", warn=False)
    problem = store.con.execute("SELECT malformed FROM entries WHERE memory_id = 'M1'").fetchone()[0]
    assert problem == contract.entry_problem({**bad, "status": bad.get("status", "active")})
    assert problem is not None and f'"{field}"' in problem
    beliefs = store.con.execute("SELECT memory_id FROM beliefs_in(now(), now(), NULL, false)").fetchall()
    assert ("M1",) not in beliefs


@pytest.mark.parametrize("field,value", [("observed_at", "2026-02-30T00:00:00Z"),
                                         ("authority", 2 ** 63), ("value", deep(3000)),
                                         ("value", math.inf), ("scope", 5)])
def test_every_command_works_on_a_store_holding_one(tmp_path, field, value):
    root = tmp_path / "s"
    write_raw(root, [{**entry("M1", "svc", "k", "bad"), field: value}, entry("M2", "svc", "j", "x")])
    for args in (["beliefs", root, "--json"], ["show", root, "M1", "--json"], ["held", root, "--json"],
                 ["lineage", root, "M1", "--json"], ["conflicts", root, "--json"], ["audit", root, "--json"]):
        done = inspector(*args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stderr[-500:])
    shown = jsonsafe.loads(inspector("show", root, "M1", "--json").stdout)
    assert shown["reason"] == "malformed" and f'"{field}"' in shown["malformed"]
    found = json.loads(inspector("scan", root, "--json").stdout)["findings"]
    assert [(f["rule"], f["memory_id"]) for f in found if f["rule"] == "entry.malformed"] == \
        [("entry.malformed", "M1")]
    assert inspector("audit", root, "--verify").returncode == 0


KEY = "sk-live-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"


def test_scan_tells_a_malformed_entry_without_a_status_that_only_erase_takes_it(tmp_path):
    # the finding said '(None) … quarantine, retract or erase it', and quarantine and retract
    # refuse such an entry (docs/format.md: only erase takes it)
    no_status = entry("M1", "svc", "k", "v")
    del no_status["status"]
    write_raw(tmp_path / "s", [no_status, {**entry("M2", "svc", "j", "v"), "status": "weird"}])
    messages = {f["memory_id"]: f["message"] for f in json.loads(
        inspector("scan", tmp_path / "s", "--json").stdout)["findings"]}
    tail = "; it is never a belief, and only erase takes it (no other action could put its status back)"
    assert messages["M1"].startswith("M1 (no status) breaks the entry contract: field \"status\"")
    assert messages["M1"].endswith(tail)
    assert messages["M2"].startswith("M2 (status 'weird') breaks the entry contract: ")
    assert messages["M2"].endswith(tail)
    assert inspector("quarantine", tmp_path / "s", "M1", "--reason", "r").returncode == 3
    shown = json.loads(inspector("show", tmp_path / "s", "M1", "--json").stdout)
    assert shown["why"].endswith("; never a belief (only erase takes it: no other action could "
                                 "put its status back)")


@pytest.mark.parametrize("depth", [1000, 5000, 100_000])
def test_scan_and_report_show_a_deep_value_s_findings_masked(tmp_path, depth):
    """The human scan and the report read every found entry's value to mask its findings:
    a value deeper than Python's parser goes (a verified log may hold one) must not crash."""
    root = tmp_path / "s"
    write_raw(root, [{**entry("M1", "svc", "k", "bad"), "value": deep(depth, KEY)},
                     entry("M2", "svc", "j", "x")])
    malformed = ('M1 (active) breaks the entry contract: field "value" is nested deeper than '
                 '64 levels; it is never a belief: quarantine, retract or erase it')
    credential = "M1's value looks like a credential (openai_key: sk-l…[40 chars])"
    scanned = inspector("scan", root, "--wide")
    assert scanned.returncode == 0, scanned.stderr[-500:]
    assert malformed in scanned.stdout and credential in scanned.stdout
    assert KEY not in scanned.stdout
    made = inspector("report", root, "--format", "md", "--out", tmp_path / "r.md")
    assert made.returncode == 0, made.stderr[-500:]
    text = (tmp_path / "r.md").read_text()
    assert f"| high | entry.malformed | M1 | {malformed} |" in text
    assert "(openai\\_key: sk-l…\\[40 chars\\])" in text and KEY not in text


def test_a_malformed_entry_can_be_quarantined_retracted_and_erased(tmp_path):
    root = tmp_path / "s"
    write_raw(root, [{**entry("M1", "svc", "k", "bad"), "observed_at": "2026-02-30T00:00:00Z"},
                     {**entry("M2", "svc", "k", "bad"), "authority": 10 ** 30},
                     {**entry("M3", "svc", "k", "sk-canary-value"), "value": deep(500)}])
    store = Store(root, warn=False)
    done = apply(store, plan(store, Request("quarantine", "contain", "oncall", ("M1",))))
    assert done.affected == ["M1"]
    done = apply(store, plan(store, Request("retract", "bad write", "oncall", ("M2",))))
    assert done.affected == ["M2"]
    done = apply(store, plan(store, Request("erase", "INC-7", "dana", ("M1", "M2", "M3"))))
    assert sorted(done.erased) == ["M1", "M2", "M3"]
    statuses = dict(Store(root, warn=False).con.execute(
        "SELECT memory_id, status FROM entries ORDER BY 1").fetchall())
    assert statuses == {"M1": "erased", "M2": "erased", "M3": "erased"}
    assert b"2026-02-30" not in (root / "events.jsonl").read_bytes()
    assert inspector("audit", root, "--verify").returncode == 0


@pytest.mark.parametrize("field,value", CASES, ids=IDS)
def test_ingest_refuses_what_would_be_malformed_and_writes_nothing(tmp_path, field, value):
    root = tmp_path / "s"
    init_store(root)
    line = {**entry("M1", "svc", "k", "v"), field: value}
    line.pop("status", None) if field != "status" else None
    feed = tmp_path / "feed.jsonl"
    feed.write_text(jsonsafe.iterative_dumps(line) + "\n", encoding="utf-8")
    if field == "status":          # a feed's status is ignored: the gate decides
        assert inspector("ingest", root, feed, "--json").returncode == 0
        return
    done = inspector("ingest", root, feed, "--json")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"line 1: field \"{field}\"" in done.stderr
    assert (root / "events.jsonl").read_bytes() == b""


def test_loader_and_audit_agree_on_a_byte_order_mark(tmp_path):
    root = tmp_path / "s"
    write_raw(root, [entry("M1", "svc", "k", "v"), entry("M2", "svc", "j", "w")])
    log = root / "events.jsonl"
    log.write_bytes(b"\xef\xbb\xbf" + log.read_bytes())
    loaded = inspector("beliefs", root)
    assert loaded.returncode == 2 and "line 1" in loaded.stderr and "byte-order mark" in loaded.stderr
    audited = inspector("audit", root, "--verify", "--json")
    assert audited.returncode == 1 and json.loads(audited.stdout)["first_bad_seq"] == 1


def test_an_appended_line_with_a_duplicated_key_is_refused_like_audit_does(tmp_path):
    root = tmp_path / "s"
    write_raw(root, [entry("M1", "svc", "k", "v")])
    store = Store(root, warn=False)
    with LogWriter(store.paths) as writer:
        writer.append([event_draft("write", "M2", "agent:x", after=entry("M2", "svc", "j", "w"))])
    log = root / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'{"actor"', b'{"actor":"agent:y","actor"', 1)
    log.write_bytes(b"".join(lines))
    with pytest.raises(Exception) as refused:
        store.refresh()
    assert "line 2" in str(refused.value) and "duplicate key" in str(refused.value)
    assert json.loads(inspector("audit", root, "--verify", "--json").stdout)["first_bad_seq"] == 2


def test_a_duplicated_key_in_the_head_line_is_refused_by_a_cold_load(tmp_path):
    """The fast read takes a duplicated key (DuckDB's reader keeps one); the head line is read
    strictly, so the exact read names it instead of a traceback."""
    root = tmp_path / "s"
    write_raw(root, [entry("M1", "svc", "k", "v"), entry("M2", "svc", "j", "w")])
    log = root / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"entity"', b'"entity":"zz","entity"', 1)
    log.write_bytes(b"".join(lines))
    loaded = inspector("beliefs", root)
    assert loaded.returncode == 2 and "Traceback" not in loaded.stderr
    assert "events.jsonl line 2: not valid JSON (duplicate key 'entity')" in loaded.stderr
    assert json.loads(inspector("audit", root, "--verify", "--json").stdout)["first_bad_seq"] == 2


@pytest.mark.parametrize("at", ["0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59",
                                "2026-02-30T00:00:00Z", "0000-01-01T00:00:00Z", "now",
                                "2016-12-31T23:59:60Z", "2025-03-01T24:00:00Z",
                                "2025-03-01T23:60:00Z", "2025-03-01T08:00:00-00:60",
                                "2025-03-01T08:00:00+05:99"])
def test_an_event_time_that_is_no_real_time_is_refused_by_loader_and_audit_alike(tmp_path, at):
    """A foreign line whose `at` is no real time (or one whose UTC leaves years 1..9999, which
    would reach Python as text): every command refuses the log naming the line, never a
    traceback, and audit --verify names the same seq."""
    root = tmp_path / "s"
    write_raw(root, [entry("M1", "svc", "k", "v")])
    draft = event_draft("write", "M2", "agent:x", after=entry("M2", "svc", "j", "w"))
    draft["at"] = at
    with LogWriter(store_paths(root)) as writer:
        writer.append([draft])
    for command in (("show", "M1"), ("audit", "--log"), ("scan",)):
        done = inspector(command[0], root, *command[1:], "--json")
        assert done.returncode == 2 and "Traceback" not in done.stderr, command
        assert 'events.jsonl line 2 (seq 2): field "at" is missing or not an RFC 3339 time' in done.stderr, command
    audited = json.loads(inspector("audit", root, "--verify", "--json").stdout)
    assert audited["first_bad_seq"] == 2 and 'field "at" is missing or not an RFC 3339 time' in audited["problem"]


def test_an_event_time_in_lower_case_is_taken_by_loader_and_audit_alike(tmp_path):
    """RFC 3339 lets `t` and `z` be lower case: audit --verify takes such a line, so every
    command does, and reports the instant as the tool writes times."""
    root = tmp_path / "s"
    write_raw(root, [entry("M1", "svc", "k", "v")])
    draft = event_draft("write", "M2", "agent:x", after=entry("M2", "svc", "j", "w"))
    draft["at"] = "2025-03-01t08:00:01.5+01:00"
    with LogWriter(store_paths(root)) as writer:
        writer.append([draft])
    audited = json.loads(inspector("audit", root, "--verify", "--json").stdout)
    assert (audited["ok"], audited["events"], audited["problems"]) == (True, 2, [])
    events = json.loads(inspector("audit", root, "--log", "--json").stdout)["events"]
    assert [(e["seq"], e["at"]) for e in events][-1] == (2, "2025-03-01T07:00:01.500000Z")
    shown = inspector("show", root, "M2", "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["entry"]["value"] == "w"


def test_a_lone_surrogate_line_is_refused_by_loader_and_audit_alike(tmp_path):
    root = tmp_path / "s"
    write_raw(root, [entry("M1", "svc", "k", "v")])
    log = root / "events.jsonl"
    log.write_bytes(log.read_bytes().replace(b'"value":"v"', b'"value":"\\ud800"'))
    loaded = inspector("beliefs", root)
    assert loaded.returncode == 2 and "line 1" in loaded.stderr and "Traceback" not in loaded.stderr
    audited = inspector("audit", root, "--verify", "--json")
    assert audited.returncode == 1 and json.loads(audited.stdout)["first_bad_seq"] == 1


# -- numbers and fields DuckDB's reader takes as written: every path judges them alike -------

NOT_FINITE = "holds a number that is not finite (Infinity or NaN)"
FOREIGN = {   # what a foreign writer put where the state said "value":"v" -> the problem named
    "value-1e999": (b'"value":1e999', f'field "value" {NOT_FINITE}'),
    "value-minus-1e999-in-a-list": (b'"value":[-1e999]', f'field "value" {NOT_FINITE}'),
    "value-400-digits": (b'"value":' + b"1" * 400 + b".5", f'field "value" {NOT_FINITE}'),
    "value-30-digit-integer": (b'"value":123456789012345678901234567890',
                               'field "value" holds an integer beyond 64 bits'),
    "extra-1e999": (b'"value":"v","x":1e999', f'field "x" {NOT_FINITE}'),
    "extra-NaN": (b'"value":"v","x":NaN', f'field "x" {NOT_FINITE}'),
    "extra-deep": (b'"value":"v","x":' + b"[" * 70 + b"]" * 70,
                   'field "x" is nested deeper than 64 levels'),
    "certificate-huge-integer": (b'"value":"v","certificate":{"n":12345678901234567890123}',
                                 'field "certificate" holds an integer beyond 64 bits'),
}


def forty_lines(root: Path, count: int = 40) -> Path:
    write_raw(root, [entry(f"M{i}", "svc", f"k{i}", "v") for i in range(1, count + 1)])
    return root / "events.jsonl"


def plant(log: Path, line_no: int, text: bytes) -> dict:
    """The state of line `line_no` with "value":"v" replaced by `text` (no re-hash: loaders
    check structure, not digests); returns that state as the strict reading parses it."""
    lines = log.read_bytes().splitlines(keepends=True)
    lines[line_no - 1] = lines[line_no - 1].replace(b'"value":"v"', text, 1)
    log.write_bytes(b"".join(lines))
    return jsonsafe.loads(lines[line_no - 1])["body"]["after"]


def malformed(root: Path, memory_id: str) -> str | None:
    store = Store(root, warn=False)
    try:
        return store.con.execute("SELECT malformed FROM entries WHERE memory_id = ?",
                                 [memory_id]).fetchone()[0]
    finally:
        store.con.close()


@pytest.mark.parametrize("case", sorted(FOREIGN))
@pytest.mark.parametrize("child", [False, True], ids=["scan-inline", "scan-in-a-child"])
def test_a_cold_load_finds_what_a_foreign_line_holds_beyond_the_contract(tmp_path, monkeypatch,
                                                                          case, child):
    if child:
        monkeypatch.setattr(strictscan, "INLINE_BYTES", 0)
    text, says = FOREIGN[case]
    root = tmp_path / "s"
    state = plant(forty_lines(root), 17, text)
    assert contract.entry_problem(state) == says
    assert malformed(root, "M17") == says
    shown = inspector("show", root, "M17", "--json")
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(shown.stdout, parse_constant=lambda word: pytest.fail(f"bare {word} in --json"))
    assert (doc["reason"], doc["malformed"]) == ("malformed", says)


@pytest.mark.parametrize("case", sorted(FOREIGN))
def test_an_appended_foreign_line_is_judged_as_a_cold_load_judges_it(tmp_path, case):
    text, says = FOREIGN[case]
    root = tmp_path / "s"
    log = forty_lines(root, 30)
    assert malformed(root, "M1") is None                # the view now holds lines 1-30
    with LogWriter(store_paths(root)) as writer:
        writer.append([event_draft("write", f"N{i}", "agent:x", after=entry(f"N{i}", "svc", f"n{i}", "v"))
                       for i in range(1, 6)])
    plant(log, 33, text)
    assert malformed(root, "N3") == says                # lines 31-35 read as a tail
    assert [malformed(root, i) for i in ("N2", "N4")] == [None, None]


@pytest.mark.parametrize("extra, says", [
    (deep(70), 'field "x" is nested deeper than 64 levels'),
    (10 ** 30, 'field "x" holds an integer beyond 64 bits'),
    ({"ok": [1, 2.5, "text"]}, None)], ids=["deep", "huge-integer", "sound"])
def test_an_unknown_field_written_canonically_is_judged_by_the_scan(tmp_path, monkeypatch, extra, says):
    """The tool's own canonical spelling: the strict scan's fastest path still judges extras."""
    monkeypatch.setattr(strictscan, "INLINE_BYTES", 0)
    root = tmp_path / "s"
    write_raw(root, [entry(f"M{i}", "svc", f"k{i}", "v") for i in range(1, 20)]
              + [{**entry("M20", "svc", "k20", "v"), "x": extra}])
    assert malformed(root, "M20") == says
    assert malformed(root, "M19") is None


# -- one validation: the loader's SQL and contract.entry_problem agree ------------------------

FIELD_VALUES = st.one_of(
    st.sampled_from([v for values in HOSTILE.values() for v in values if not isinstance(v, list)
                     or len(v) < 10]),
    st.text(max_size=8), st.integers(min_value=-(2 ** 40), max_value=2 ** 40),
    st.none(), st.lists(st.text(max_size=3), max_size=2))


@pytest.mark.heavy
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutations=st.dictionaries(st.sampled_from(sorted(HOSTILE) + ["x", "certificate"]), FIELD_VALUES,
                                  max_size=3),
       dropped=st.sets(st.sampled_from(["entity", "attribute", "value", "kind", "source", "observed_at",
                                        "layer", "scope", "authority", "tags"]), max_size=2))
@example(mutations={"observed_at": "2025-03-01t04:06:55z"}, dropped=set())
@example(mutations={"authority": 2 ** 31 - 1, "confidence": 1}, dropped=set())
@example(mutations={"tags": [], "justification": []}, dropped=set())
@example(mutations={"x": 10 ** 30}, dropped=set())
@example(mutations={"value": 10 ** 30}, dropped=set())
@example(mutations={}, dropped={"value"})
@example(mutations={"value": 2 ** 63, "certificate": 2 ** 63}, dropped=set())
@example(mutations={"scope": "/".join(["t"] * 32)}, dropped=set())     # as deep as it may be
@example(mutations={"scope": "/".join(["t"] * 33)}, dropped=set())
@example(mutations={"scope": "a//b"}, dropped=set())
@example(mutations={"scope": "a/"}, dropped=set())
@example(mutations={"scope": "/"}, dropped=set())
@example(mutations={"scope": "a/ /b"}, dropped=set())
def test_sql_and_python_judge_entries_alike(tmp_path_factory, mutations, dropped):
    state = {**entry("M1", "svc", "k", "v"), **mutations}
    for name in dropped:
        state.pop(name, None)
    state.setdefault("status", "active")
    if state.get("status") == "erased":
        return
    root = tmp_path_factory.mktemp("s") / "s"
    write_raw(root, [state])
    store = Store(root, warn=False)
    sql_says = store.con.execute("SELECT malformed FROM entries").fetchone()[0]
    # The state as the log holds it: canonical JSON, its keys sorted, whose order decides
    # which of two bad fields is named first ("certificate" before "value"; the dict written
    # had "value" first: CI, stop 54, mutations={"value": 2**63, "certificate": 2**63}).
    stored = dict(sorted(state.items()))
    assert sql_says == contract.entry_problem(stored), (stored, sql_says)


# -- text a terminal gave in bytes that are not UTF-8 ------------------------------------------
# Python keeps each such byte of an argument as a lone surrogate ("M\udcfcller": Latin-1 "Müller");
# written to the log it is not UTF-8, and no command could open the store again.

@pytest.mark.parametrize("args, named", [
    (("ingest", "{root}", "{feed}", "--actor", "agent:m\udcfcller"), "the value of --actor (byte 0xfc)"),
    (("ingest", "{root}", "{feed}", "--actor=agent:m\udcfcller"), "the value of --actor (byte 0xfc)"),
    (("erase", "{root}", "M1", "--reason", "DSR M\udcfcller"), "the value of --reason (byte 0xfc)"),
    (("quarantine", "{root}", "M1", "--reason", "r\udcff"), "the value of --reason (byte 0xff)"),
    (("show", "{root}", "x\udcff"), "argument 3 (byte 0xff)"),
    (("beliefs", "{root}", "--scope", "s\udce9"), "the value of --scope (byte 0xe9)"),
])
def test_an_argument_that_is_not_utf8_is_refused_before_anything_is_written(tmp_path, args, named):
    root = tmp_path / "s"
    write_raw(root, [entry("M1", "svc", "k", "v")])
    feed = tmp_path / "feed.jsonl"
    feed.write_text(json.dumps(entry("M2", "svc", "j", "w")) + "\n")
    before = sorted(p.name for p in root.iterdir()), (root / "events.jsonl").read_bytes()
    done = inspector(*(a.format(root=root, feed=feed) for a in args))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"error: {named} is not valid UTF-8: give it in UTF-8 (a UTF-8 "
                           "terminal, or LANG=C.UTF-8); nothing was done\n")
    assert (sorted(p.name for p in root.iterdir()), (root / "events.jsonl").read_bytes()) == before


def test_a_store_path_that_is_not_utf8_still_opens(tmp_path):
    """A directory named in Latin-1 is a real path: it is taken, not refused."""
    root = Path(tmp_path / "caf\udce9")
    write_raw(root, [entry("M1", "svc", "k", "v")])
    done = inspector("show", root, "M1", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["entry"]["value"] == "v"


def test_the_core_refuses_text_that_is_not_unicode_before_writing(tmp_path):
    """Below the command line (the TUI, the Python API): the writer and every action refuse it
    too, and the log stays as it was."""
    from inspector.store.errors import BadInput
    root = tmp_path / "s"
    write_raw(root, [entry("M1", "svc", "k", "v")])
    log = (root / "events.jsonl").read_bytes()
    with LogWriter(store_paths(root)) as writer, pytest.raises(BadInput) as refused:
        writer.append([event_draft("write", "M2", "agent:m\udcfcller", after=entry("M2", "svc", "j", "w"))])
    assert str(refused.value) == ("the event for 'M2' holds text that is not valid UTF-8 "
                                  '(field "actor"); give it in UTF-8: nothing was written')
    store = Store(root, warn=False)
    for action in ("quarantine", "erase"):
        with pytest.raises(BadInput) as refused:
            plan(store, Request(action, "DSR M\udcfcller", "alice", ("M1",)))
        assert str(refused.value) == ("--reason is not valid UTF-8 text (a lone surrogate): "
                                      "give it in UTF-8")
    assert (root / "events.jsonl").read_bytes() == log and not (root / "certificates").exists()


# -- lines that are no event: every loader and audit --verify refuse them alike ---------------

def _set(path: tuple, value):
    """A change to a draft: the key at `path` set to `value` (deleted when value is _GONE)."""
    def change(draft: dict) -> None:
        node = draft
        for key in path[:-1]:
            node = node[key]
        if value is _GONE:
            del node[path[-1]]
        else:
            node[path[-1]] = value
    return change


_GONE = object()
ACTOR = 'field "actor" is missing or not of the form class:id'
AFTER = 'field "body.after" is missing or not an object'
AFTER_ID = "body.after.id does not match memory_id"
BATCH_SIZE = 'field "batch_size" must be a positive integer'
CHAIN_HEX = 'fields "prev" and "hash" must be SHA-256 digests (64 lower-case hex digits)'
REDACTED = 'a redacted body is {"erased": "<certificate-id>"} alone'
NO_EVENT = {   # a change to line 2's draft (sealed after it) or to its sealed line -> the problem
    "actor-capital": (_set(("actor",), "Agent:x"), ACTOR),
    "actor-no-class": (_set(("actor",), "agent"), ACTOR),
    "actor-space": (_set(("actor",), "agent:a b"), ACTOR),
    "after-null": (_set(("body", "after"), None), AFTER),
    "after-list": (_set(("body", "after"), [1]), AFTER),
    "after-missing": (_set(("body", "after"), _GONE), AFTER),
    "after-id-other": (_set(("body", "after", "id"), "M9"), AFTER_ID),
    "after-id-missing": (_set(("body", "after", "id"), _GONE), AFTER_ID),
    "after-id-a-number": (lambda d: (d.__setitem__("memory_id", "2"), d["body"]["after"].__setitem__("id", 2)),
                          AFTER_ID),
    "status-erased-in-a-write": (_set(("body", "after", "status"), "erased"),
                                 'status "erased" is only written by an erase event'),
    "erase-without-certificate": (_set(("op",), "erase"),
                                  'an erase event needs body.after.status "erased" and a certificate'),
    "memory_id-a-number": (lambda d: (d.__setitem__("memory_id", 2), d["body"]["after"].__setitem__("id", 2)),
                           'field "memory_id" must be a string'),
    "batch-a-number": (_set(("batch",), 5), 'field "batch" must be a string or null'),
    "batch_size-text": (_set(("batch_size",), "2"), BATCH_SIZE),
    "batch_size-0": (_set(("batch_size",), 0), BATCH_SIZE),
    "batch_size-negative": (_set(("batch_size",), -1), BATCH_SIZE),
    "batch_size-float": (_set(("batch_size",), 1.0), BATCH_SIZE),
    "batch_size-true": (_set(("batch_size",), True), BATCH_SIZE),
    "batch_size-null": (_set(("batch_size",), None), BATCH_SIZE),
    "erased-a-number": (lambda d: d.__setitem__("body", {"erased": 5}), REDACTED),
    "erased-beside-after": (_set(("body", "erased"), "cert-0123456789abcdef"), REDACTED),
}
SEALED = {     # a change to line 2 as written (its digests no longer matter: the line is no event)
    "hash-upper-case": (lambda e: e.__setitem__("hash", e["hash"].upper()), CHAIN_HEX),
    "prev-upper-case": (lambda e: e.__setitem__("prev", e["prev"].upper()), CHAIN_HEX),
    "prev-and-hash-null": (lambda e: e.update(prev=None, hash=None), CHAIN_HEX),
    "body_digest-upper-case": (lambda e: e.__setitem__("body_digest", e["body_digest"].upper()),
                               'field "body_digest" is missing or not a SHA-256 (64 lower-case hex digits)'),
}


def three_lines(root: Path, change=None) -> None:
    """M1, then M2's write with `change` made to its draft before it is sealed, then M3."""
    paths = init_store(root)
    draft = event_draft("write", "M2", "agent:x", after=entry("M2", "svc", "j", "w"))
    if change:
        change(draft)
    with LogWriter(paths) as writer:
        for line in ([event_draft("write", "M1", "agent:x", after=entry("M1", "svc", "k", "v"))],
                     [draft],
                     [event_draft("write", "M3", "agent:x", after=entry("M3", "svc", "l", "v"))]):
            writer.append(line)


def every_walk(root: Path) -> list[dict]:
    """audit --verify's report from the reference walk and from the chunked one (one chunk, a
    chunk a line, in this process)."""
    from inspector.store import audit, verify_parallel
    paths = store_paths(root)
    walks = [audit.verify_sequential(paths)] + [
        verify_parallel.verify(paths, workers=0, chunk_bytes=chunk) for chunk in (None, 1)]
    return [{"doc": r.as_json(), "all": [(p.seq, p.text) for p in r.problems]} for r in walks]


@pytest.mark.parametrize("case", sorted(NO_EVENT) + sorted(SEALED))
def test_a_line_that_is_no_event_is_refused_by_loader_and_audit_alike(tmp_path, case):
    """Every loading command refuses the log naming line 2 and sends the operator to
    audit --verify, which names seq 2 with the same words (it once said "chain ✓ verified"),
    by the reference walk and by the chunked one alike, in a pool of processes too."""
    root = tmp_path / "s"
    if case in NO_EVENT:
        change, says = NO_EVENT[case]
        three_lines(root, change)
    else:
        change, says = SEALED[case]
        three_lines(root)
        edit_line(root, 2, change)
    for command in (("show", "M1"), ("beliefs",)):
        done = inspector(command[0], root, *command[1:], "--json")
        assert (done.returncode, "Traceback" in done.stderr) == (2, False), (command, done.stderr)
        assert f"events.jsonl line 2 (seq 2): {says}; nothing was loaded" in done.stderr, command
    audited = inspector("audit", root, "--verify", "--json")
    doc = json.loads(audited.stdout)
    assert (audited.returncode, doc["ok"], doc["first_bad_seq"], doc["problem"]) == (
        1, False, 2, f"line 2: {says}")
    reference, *chunked = every_walk(root)
    assert reference["doc"] == doc and chunked == [reference, reference]
    pooled = subprocess.run(
        [sys.executable, "-m", "inspector", "audit", str(root), "--verify", "--json"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "INSPECTOR_VERIFY_WORKERS": "2", "INSPECTOR_VERIFY_CHUNK_BYTES": "200"})
    assert json.loads(pooled.stdout) == doc


@pytest.mark.parametrize("change", [_set(("batch_size",), 1), _set(("batch",), _GONE),
                                    _set(("actor",), "agent:a\u00a0b")],
                         ids=["batch_size-1", "batch-absent", "actor-no-break-space"])
def test_an_envelope_both_take_is_taken_by_loader_and_audit_alike(tmp_path, change):
    """A batch of one, a batch left out (null), a no-break space in the actor's id (the
    loader's \\S is ASCII's): loaders and audit --verify take them alike."""
    root = tmp_path / "s"
    three_lines(root, change)
    shown = inspector("show", root, "M2", "--json")
    assert (shown.returncode, json.loads(shown.stdout)["entry"]["value"]) == (0, "w")
    reference, *chunked = every_walk(root)
    assert (reference["doc"]["ok"], reference["doc"]["events"]) == (True, 3)
    assert chunked == [reference, reference]


def test_python_reads_times_with_the_loaders_own_pattern():
    """contract/model's RFC 3339 check is the loader's real_time pattern, character for
    character (an outside probe found +05:99 taken by ingest and audit, refused by loaders)."""
    from inspector.store import model, queries
    assert f"regexp_full_match(t, '{model.RFC3339}')" in queries.sql("macro_load_checks")
    assert not model.is_rfc3339("2025-03-01T08:00:00+05:99")
    assert not model.is_rfc3339("2025-03-01T0\u0668:00:00Z")        # an Arabic-Indic digit
    assert model.is_rfc3339("2025-03-01t08:00:00-23:59")
