"""A hostile writer, property-based: feeds and foreign-written chained lines drawn from a
grammar of hostile values (impossible times, huge and non-finite numbers, deep nesting,
invalid and invisible Unicode, control bytes, huge strings, wrong types). After each: no
command raises (every failure is an InspectorError with its exit code), `audit --verify`
agrees with the loader, and whatever was written can be quarantined and erased with no byte
of it left under the store. A third property plants links, files and modes on the store's own
paths: writers refuse, nothing outside the store changes, and no erasure leaves residue.

FUZZ_EXAMPLES sets the number of examples (CI runs a few dozen; the closing note's figures
are from a long run).
"""

from __future__ import annotations

import base64
import json
import math
import os
import shutil
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, event, example, given, settings, strategies as st
from typer.testing import CliRunner

from inspector.cli import app
from inspector.store import contract, jsonsafe
from inspector.store.append import LogWriter, event_draft, init_store
from inspector.store.chain import line_bytes, seal_after
from inspector.store.model import now_text
from storegen import deep, entry

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
CANARY = "zq-canary-7f3e"
runner = CliRunner()



TIMES = st.sampled_from([
    "2026-02-30T00:00:00Z", "2026-13-45T25:61:61Z", "0000-01-01T00:00:00+23:59",
    "0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59", "2025-01-01T00:00:00+24:00",
    "2025-01-01t00:00:00z", "2025-01-01T00:00:00.123456789Z", "2025-01-01", "", "now",
    "2016-12-31T23:59:60Z", "2025-01-01T24:00:00Z",
    "2025-03-01T04:06:55Z"])
NUMBERS = st.sampled_from([2 ** 63, 10 ** 30, 2 ** 31, -(2 ** 31) - 1, 0, 1, -1, 1.5, math.inf,
                           -math.inf, math.nan, True, None, "3"])
UNICODE = st.sampled_from(["\ud800", "a\udfffb", "\u202e", "\u200b", "\ufeff", "\x00", "\x1b]52;c;x\x07",
                           "[bold]x[/bold]", "\U0001F600", "e\u0301", "ｆｕｌｌ", "\x7f\x9b"])
STRINGS = st.one_of(st.text(max_size=12), UNICODE, st.just("x" * 100_000))
LEAF = st.one_of(STRINGS, NUMBERS)
VALUES = st.one_of(LEAF, st.builds(lambda n, leaf: deep(n, leaf), st.sampled_from([2, 63, 65, 3000]), LEAF),
                   st.dictionaries(st.text(max_size=4), LEAF, max_size=3))
FIELD_NAMES = ["observed_at", "valid_from", "valid_to", "expires_at", "authority", "confidence",
               "value", "scope", "tags", "justification", "kind", "entity", "source", "subject",
               "context", "layer", "x-unknown", "certificate"]
FIELDS = st.sampled_from(FIELD_NAMES)


def mutated(mutations: dict, memory_id: str) -> dict:
    state = {**entry(memory_id, "svc", "k", f"{CANARY} base value"), **mutations}
    state["context"] = f"{CANARY} context" if "context" not in mutations else mutations["context"]
    return state


def run(*args) -> int:
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"inspector {' '.join(map(str, args[:3]))} raised "
                             f"{type(result.exception).__name__}: {result.exception}")
    return result.exit_code


def not_finite(document) -> float | None:
    """The first NaN or ±Infinity anywhere in a parsed document (walked without the stack)."""
    stack = [document]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float) and not math.isfinite(item):
            return item
    return None


def residue(root: Path, canary: str) -> list[str]:
    forms = {canary.encode(), json.dumps(canary).encode(), base64.b64encode(canary.encode()),
             urllib.parse.quote(canary).encode()}
    return [str(p) for p in root.rglob("*") if p.is_file()
            for form in forms if form in p.read_bytes()]


def foreign_append(paths, draft: dict) -> None:
    """Another tool's writer: the line chained after the head and appended as it comes, even
    holding text that is not UTF-8 (a lone surrogate), which the inspector's writer refuses."""
    with LogWriter(paths) as writer:       # the lock and the head
        event, = seal_after([draft], writer.seq, writer.prev, now_text())
        writer.set_torn_aside()
        with paths.log.open("ab") as log:
            log.write(line_bytes(event))


@pytest.mark.heavy
@settings(max_examples=EXAMPLES, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(feed=st.dictionaries(FIELDS, st.one_of(TIMES, NUMBERS, VALUES), max_size=3),
       foreign=st.dictionaries(FIELDS, st.one_of(TIMES, NUMBERS, VALUES), max_size=3))
@example(feed={}, foreign={"observed_at": "a\udfffb"})      # a foreign line that is not UTF-8
def test_a_hostile_writer_never_wins(tmp_path_factory, feed, foreign):
    root = tmp_path_factory.mktemp("fz") / "s"
    paths = init_store(root)
    # 1. through the gate: written whole and sound, or refused with nothing written
    line = mutated(feed, "F1")
    line.pop("status")
    feed_file = root.parent / "feed.jsonl"
    feed_file.write_bytes((jsonsafe.iterative_dumps(line, default=str) + "\n")
                          .encode("utf-8", "surrogatepass"))
    before = paths.log.read_bytes()
    code = run("ingest", root, feed_file, "--json")
    assert code in (0, 2)
    if code == 2:
        assert paths.log.read_bytes() == before
    else:
        found = json.loads(runner.invoke(app, ["scan", str(root), "--json"]).stdout)["findings"]
        assert not [f for f in found if f["rule"] == "entry.malformed"], found
    # 2. a foreign writer's chained line, whatever it holds
    state = mutated(foreign, "X1")
    try:
        foreign_append(paths, event_draft("write", "X1", "agent:evil", after=state))
        wrote = True
    except (ValueError, TypeError):
        wrote = False                       # not even JSON (e.g. NaN through canonical)
    loads = run("beliefs", root, "--json")
    assert loads in (0, 2)
    verified = run("audit", root, "--verify", "--json")
    assert verified in (0, 1)
    assert (loads == 0) == (verified == 0), "the loader and audit disagree about the log"
    for command in (["show", root, "X1", "--json"], ["scan", root, "--json"], ["held", root, "--json"],
                    ["lineage", root, "X1", "--json"], ["show", root, "X1"]):
        assert run(*command) in ((0, 2) if loads == 0 else (2,))
    if loads == 0 and wrote:
        # the loader calls the entry malformed exactly when the contract does, and says so in
        # JSON that has no bare NaN or Infinity
        shown = runner.invoke(app, ["show", str(root), "X1", "--json"]).stdout
        doc = jsonsafe.loads(shown)                 # iterative: the value may be 3,000 deep
        assert not_finite(doc) is None, f"bare {not_finite(doc)} in --json"
        written = jsonsafe.loads(paths.log.read_bytes().splitlines()[-1])["body"]["after"]
        says = contract.entry_problem(written)
        assert doc.get("malformed") == says, f"loader: {doc.get('malformed')!r}, contract: {says!r}"
    # 3. whatever was written can be contained and erased, leaving nothing
    if loads == 0 and wrote:
        assert run("quarantine", root, "X1", "--reason", "contain", "--operator", "fz") in (0, 3)
        ids = ["X1"] + (["F1"] if code == 0 else [])
        assert run("erase", root, *ids, "--reason", "DSR-1", "--operator", "fz") == 0
        assert residue(root, CANARY) == []
        assert run("audit", root, "--verify") == 0


WHERE = {"envelope": b"{", "body": b'"body":{', "state": b'"after":{', "value": b'"value":{'}

@settings(max_examples=max(EXAMPLES // 2, 10), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(where=st.sampled_from(sorted(WHERE)), dup=LEAF, head=st.booleans(), data=st.data())
def test_a_duplicated_key_anywhere_is_refused_by_loader_and_audit_alike(
        tmp_path_factory, where, dup, head, data):
    """A foreign writer's bytes: one chained line holds a key twice (in the envelope, the body,
    the state or a value; the last line or one in the middle). Every loading command refuses
    the log, and audit --verify names that line's seq: never one reading each copy of the key
    differently."""
    root = tmp_path_factory.mktemp("dup") / "s"
    paths = init_store(root)
    with LogWriter(paths) as writer:
        writer.append([event_draft("write", f"M{i}", "agent:x",
                                   after=entry(f"M{i}", "svc", f"k{i}", {"x": i}))
                       for i in (1, 2, 3)])
    lines = paths.log.read_bytes().splitlines(keepends=True)
    target = 3 if head else 2
    parsed = json.loads(lines[target - 1])
    obj = {"envelope": parsed, "body": parsed["body"], "state": parsed["body"]["after"],
           "value": parsed["body"]["after"]["value"]}[where]
    key = data.draw(st.sampled_from(sorted(obj)), label="key")
    member = jsonsafe.iterative_dumps({key: dup}, default=str)[1:-1].encode("utf-8", "surrogatepass")
    at = lines[target - 1].index(WHERE[where]) + len(WHERE[where])
    lines[target - 1] = lines[target - 1][:at] + member + b"," + lines[target - 1][at:]
    paths.log.write_bytes(b"".join(lines))
    assert run("beliefs", root, "--json") == 2
    assert run("show", root, "M1", "--json") == 2
    verified = runner.invoke(app, ["audit", str(root), "--verify", "--json"])
    assert verified.exit_code == 1
    assert json.loads(verified.stdout)["first_bad_seq"] == target


# Links and permissions on the store's own paths: what another account that can reach the
# store directory may plant there. (name, what is put there)
PLANTS = [(".lock", "link-file"), ("torn", "link-dir"), ("certificates", "link-dir"),
          (".inspector", "link-dir"), ("reports", "link-dir"), ("events.jsonl", "link-log"),
          (".inspector/view.duckdb", "link-file"), ("torn/TAIL", "link-file"),
          (".events.jsonl.tmp-1-ab12", "link-file"), ("certificates", "link-dangling"),
          ("torn", "file"), ("certificates", "file"), (".inspector", "file")]
LINKED = {".lock", "torn", "certificates", ".inspector", "reports", "events.jsonl"}


def tree(top: Path) -> dict[str, object]:
    """Every path under `top` (links not followed): a link's target, a file's bytes."""
    found = {}
    for path in sorted(top.rglob("*")):
        rel = str(path.relative_to(top))
        found[rel] = (("link", os.readlink(path)) if path.is_symlink() else
                      ("dir",) if path.is_dir() else ("file", path.read_bytes()))
    return found


@pytest.mark.heavy
@settings(max_examples=max(EXAMPLES // 2, 10), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(plants=st.lists(st.sampled_from(PLANTS), max_size=3, unique_by=lambda p: p[0]),
       root_mode=st.sampled_from([0o700, 0o750, 0o755, 0o770, 0o777, 0o733, 0o702]),
       log_mode=st.sampled_from([0o600, 0o644, 0o666, 0o400]), torn=st.booleans(),
       view=st.booleans())
def test_links_and_modes_planted_on_the_store_s_paths_never_win(
        tmp_path_factory, monkeypatch, plants, root_mode, log_mode, torn, view):
    """Links (to a file or a directory elsewhere, dangling, the log itself moved away), files
    where directories belong, and group/other modes, planted on the store's paths; a torn
    tail holding the canary; a view or none. Every command then: no exception; writers refuse
    (exit 2, nothing written) whenever a path they write is linked or others can write the
    store; nothing outside the store ever changes; an erasure that succeeds leaves no byte of
    what it erased. Once the plants are removed, the same erasure succeeds with no residue."""
    monkeypatch.setenv("INSPECTOR_VIEW_MIN_BYTES", "0" if view else str(1 << 30))
    base = tmp_path_factory.mktemp("plant")
    root, outside = base / "s", base / "outside"
    paths = init_store(root)
    with LogWriter(paths) as writer:
        writer.append([event_draft("write", m, "agent:1", after={
            **entry(m, "svc", f"k{m}", f"{CANARY} value of {m}"), "context": f"{CANARY} {m}"})
            for m in ("A", "B")])
    assert run("beliefs", root, "--json") == 0              # a view, when one is kept
    if torn:
        with paths.log.open("ab") as f:
            f.write(b'{"seq":3,"body":{"after":{"value":"' + CANARY.encode())
    tail = str(paths.log.stat().st_size)
    outside.mkdir()
    (outside / "victim").write_bytes(b"victim")
    (outside / "dir").mkdir()
    moved = ("events.jsonl", "link-log") in plants
    for name, what in plants:
        at = root / name.replace("TAIL", tail)
        if at.parent.is_symlink() or at.parent.is_file():
            continue                                        # its directory is a plant too
        at.parent.mkdir(mode=0o700, exist_ok=True)
        if what == "link-log":
            os.replace(at, outside / "log")                 # the log itself moves away
            at.symlink_to(outside / "log")
            continue
        if at.is_dir() and not at.is_symlink():
            shutil.rmtree(at)
        else:
            at.unlink(missing_ok=True)
        if what == "file":
            at.write_bytes(b"planted")
        else:
            at.symlink_to({"link-file": outside / "victim", "link-dir": outside / "dir",
                           "link-dangling": outside / "nowhere"}[what])
    log_file = outside / "log" if moved else paths.log
    log_file.chmod(log_mode)
    root.chmod(root_mode)
    refused = bool(root_mode & 0o022) or any(name in LINKED and what.startswith("link")
                                             for name, what in plants)
    before_outside, before_log = tree(outside), log_file.read_bytes()

    feed = base / "feed.jsonl"
    fed = {**entry("F1", "svc", "kf", f"{CANARY} fed"), "context": f"{CANARY} fed"}
    fed.pop("status")
    feed.write_text(json.dumps(fed) + "\n")
    codes = {"ingest": run("ingest", root, feed, "--json"),
             "quarantine": run("quarantine", root, "A", "--reason", "contain", "--operator", "fz"),
             "beliefs": run("beliefs", root, "--json"),
             "verify": run("audit", root, "--verify", "--json")}
    codes["erase"] = run("erase", root, "A", "B", *(["F1"] if codes["ingest"] == 0 else []),
                         "--reason", "DSR-1", "--operator", "fz")
    event(f"writers {'refused' if refused else 'allowed'}; erase exit {codes['erase']}")
    assert codes["ingest"] in (0, 2) and codes["quarantine"] in (0, 2, 3), codes
    assert codes["beliefs"] in (0, 2) and codes["verify"] in (0, 1, 2) and codes["erase"] in (0, 2)
    assert (codes["beliefs"] == 0) == (codes["verify"] == 0), codes
    if refused:
        assert codes["ingest"] == codes["quarantine"] == codes["erase"] == 2, codes
        assert log_file.read_bytes() == before_log
    assert tree(outside) == before_outside, "something outside the store changed"
    if codes["erase"] == 0:
        assert residue(root, CANARY) == []

    # The operator removes the plants: the same erasure then succeeds and leaves nothing.
    root.chmod(0o700)
    for path in sorted(root.rglob("*"), key=lambda p: -len(p.parts)):
        if path.is_symlink() or (path.is_file() and path.read_bytes() == b"planted"):
            path.unlink()
    if moved:
        os.replace(outside / "log", root / "events.jsonl")
    if codes["erase"] != 0:
        ingested = b'"F1"' in paths.log.read_bytes()
        assert run("erase", root, "A", "B", *(["F1"] if ingested else []),
                   "--reason", "DSR-1", "--operator", "fz") == 0
    assert residue(root, CANARY) == [] and residue(outside, CANARY) == []
    assert run("audit", root, "--verify") == 0
