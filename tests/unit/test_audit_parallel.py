"""`audit --verify` split into chunks (verify_parallel) reports exactly what the sequential
reference walk (`audit.verify_sequential`) reports, for intact logs and for every kind of
damage: the whole JSON document, every problem in its order, the head.

The chunked walk is forced onto small logs: a chunk of one line, random small chunks, one
chunk; in this process (the speculation and its repair are the same code as with a pool) and,
in a few tests, in a real pool of processes."""

from __future__ import annotations

import hashlib
import json
import os
import threading

import hypothesis
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from storegen import entry, write_store
from inspector.store import audit, fastline, verify_parallel
from inspector.store.chain import GENESIS, canonical, line_hash, seal, seal_after
from inspector.store.logfile import store_paths
from inspector.store.errors import LogProblem
from inspector.store.load import Store
from inspector.store.model import ENTRY_DEFAULTS


# -- comparing the two walks ---------------------------------------------------------------------

def everything(report: audit.Report) -> dict:
    """The JSON document and every problem (the document shows only the first 20)."""
    return {"doc": report.as_json(), "all": [(p.seq, p.text) for p in report.problems]}


def outcome(fn, *args, **kw):
    try:
        return everything(fn(*args, **kw))
    except ValueError as exc:                    # a malformed --expect-head, in both alike
        return ("ValueError", str(exc))


def assert_same(root, expect_head=None, chunks=(1, 97, None), workers=0) -> dict:
    paths = store_paths(root)
    reference = outcome(audit.verify_sequential, paths, expect_head)
    for chunk in chunks:
        stats = verify_parallel.Stats()
        got = outcome(verify_parallel.verify, paths, expect_head, workers=workers,
                      chunk_bytes=chunk, stats=stats)
        assert got == reference, f"chunk_bytes={chunk}"
    return reference


# -- writing logs -------------------------------------------------------------------------------

def dump(event: dict) -> bytes:
    return canonical(event)


def chain(drafts: list[dict], seq: int = 0, prev: str = GENESIS) -> list[dict]:
    return seal_after(drafts, seq, prev, "2025-01-01T00:00:00Z")


CERTIFICATE = {"id": "C1", "operator": "operator:alice", "erased": ["M1"], "head_after": "9:abc"}
CERTIFICATE_DIGEST = hashlib.sha256(canonical({k: v for k, v in CERTIFICATE.items()
                                               if k != "head_after"})).hexdigest()


def rechain(events: list, start: int, prev: str) -> None:
    """Re-seal the chained events from `start` on, the first on `prev` (a forger re-hashing)."""
    for event in events[start:]:
        if isinstance(event, dict) and "hash" in event:
            event["prev"] = prev
            event["hash"] = prev = line_hash(event)


def erase_draft(memory_id: str, cid: str, digest: str) -> dict:
    return {"actor": "operator:alice", "op": "erase", "memory_id": memory_id, "batch": "E1",
            "body": {"before": None, "after": {"id": memory_id, "status": "erased",
                                               "certificate": cid, "certificate_digest": digest,
                                               "subject_digest": None},
                     "reason": "asked", "salt": "00" * 16}}


def write(root, lines: list[bytes], tail: bytes = b"") -> None:
    root.mkdir(exist_ok=True)
    (root / "events.jsonl").write_bytes(b"".join(line + b"\n" for line in lines) + tail)


# values that reach every corner of the fast grammar and beyond it
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-10**20, 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.text(alphabet='"\\/\b\f\n\r\t\x01\x7f[]{}:,é\u2028', max_size=8),
    st.sampled_from(["", "[", "{" * 210, "[" * 205, "a,\"body\":", ',"body_digest":"',
                     ',"hash":"', "\ud800", "x\udfff", "😀"]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=6)
ACTORS = st.integers(0, 39).map(lambda i: {39: "", 38: 'a,"b"', 37: "agent:é", 36: "importer:mem0"}.get(
    i, "operator:alice" if i % 2 else "agent:1"))


@st.composite
def drafts(draw) -> list[dict]:
    n = draw(st.integers(1, 14))
    out, states = [], {}
    for _ in range(n):
        memory_id = draw(st.sampled_from(["M1", "M2", "M3"]))
        after = entry(memory_id, value=draw(st.one_of(st.text(max_size=12), st.integers(), VALUES)),
                      tags=draw(st.lists(st.text(max_size=3), max_size=2)),
                      confidence=draw(st.none() | st.floats(0, 1)),
                      context=draw(st.none() | st.text(max_size=6)))
        if draw(st.integers(0, 9)) == 0:
            after["extra"] = draw(VALUES)                  # a field our writer does not know
        if draw(st.integers(0, 9)) == 0:
            del after["tags"]
        draft = {"actor": draw(ACTORS), "op": draw(st.sampled_from(["write", "update", "hold",
                                                                    "approve", "quarantine"])),
                 "memory_id": memory_id, "batch": draw(st.none() | st.sampled_from(["B1", "é"])),
                 "body": {"before": states.get(memory_id), "after": after,
                          "reason": draw(st.none() | st.text(max_size=6)), "salt": "ab" * 16}}
        if draw(st.integers(0, 4)) == 0:
            draft["batch_size"] = draw(st.sampled_from([1, 2, 0, -3]))
        if draw(st.integers(0, 19)) == 0:
            draft["zz_extra"] = draw(SCALARS)
        states[memory_id] = after
        out.append(draft)
    return out


def _redact(events, memory_id, cid):
    """Erasure's rewrite: every event of the entry but the erase event loses its body."""
    for event in events:
        if event.get("memory_id") == memory_id and event.get("op") != "erase":
            event["body"] = {"erased": cid}


DAMAGE = ["body", "envelope", "rehash", "swap", "delete", "duplicate", "gap", "malformed",
          "bom", "dupkey", "dupkey_nested", "surrogate", "utf8", "control", "foreign_spaces",
          "foreign_order", "foreign_ascii", "foreign_digest", "crlf", "unchain_prefix",
          "unchain_middle", "bad_envelope", "huge_int", "deep", "not_object", "empty_line",
          "one_of_prev_hash", "renumber"]


@st.composite
def stores(draw):
    """(lines, torn tail, expect head, certificates to write) for one random log."""
    events = chain(draw(drafts()))
    certs = {}
    erasing = draw(st.sampled_from(["none", "none", "none", "right", "right", "wrong_digest",
                                    "no_file", "no_event", "erase_first"]))
    if erasing != "none":
        digest_ok = erasing != "wrong_digest"
        certs["C1"] = digest_ok
        if erasing != "no_event":
            draft = erase_draft("M1", "C1", CERTIFICATE_DIGEST if digest_ok else "0" * 64)
            events += chain([draft], events[-1]["seq"], events[-1]["hash"])
        if erasing == "no_file":
            certs.pop("C1")
        _redact(events, "M1", "C1")
        if erasing == "erase_first" and len(events) > 2:      # the erase event before a redaction
            events.insert(0, events.pop())
            for i, event in enumerate(events, 1):
                event["seq"] = i
            rechain(events, 0, GENESIS)
    lines = [dump(e) for e in events]
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2, 3]))):
        kind = draw(st.sampled_from(DAMAGE))
        lines = damage(draw, kind, lines)
    tail = draw(st.sampled_from([b"", b"", b'{"seq":', b'{"actor":"x","batch":"T","batch_size":3}']))
    heads = [None] * 6 + ["1:" + "0" * 64, "999:" + "a" * 64, "bad-head"]
    for raw in lines[-2:]:
        try:
            event = json.loads(raw)
            heads += [f"{event['seq']}:{event['hash']}"] * 2
        except (ValueError, KeyError, TypeError):
            pass
    return lines, tail, draw(st.sampled_from(heads)), certs


def damage(draw, kind, lines):
    if not lines:
        return lines
    k = draw(st.integers(0, len(lines) - 1))
    raw = lines[k]
    try:
        event = json.loads(raw)
        assert isinstance(event, dict)
    except (ValueError, AssertionError):
        event = None
    lines = list(lines)
    if kind == "swap" and len(lines) > 1:
        j = draw(st.integers(0, len(lines) - 1))
        lines[k], lines[j] = lines[j], lines[k]
    elif kind == "delete":
        del lines[k]
    elif kind == "duplicate":
        lines.insert(k, raw)
    elif kind == "malformed":
        lines[k] = draw(st.sampled_from([raw[:len(raw) // 2], b"{not json", b"{}", b"null",
                                         raw + b"x", raw[:-1] + b',}']))
    elif kind == "bom":
        lines[k] = b"\xef\xbb\xbf" + raw
    elif kind == "empty_line":
        lines.insert(k, b"")
    elif kind == "not_object":
        lines[k] = b'["seq",1]'
    elif kind == "utf8":
        lines[k] = raw.replace(b'"agent:', b'"agent\xff:', 1).replace(b'"ab', b'"\xc3(', 1)
    elif kind == "control":
        lines[k] = raw.replace(b'"ab', b'"\x01b', 1)
    elif kind == "crlf":
        lines[k] = raw + b"\r"
    elif kind == "surrogate":
        lines[k] = raw.replace(b'"salt":"ab', b'"salt":"\\ud800', 1)
    elif kind == "huge_int":
        lines[k] = raw.replace(b'"authority":0', b'"authority":' + b"7" * 5000, 1)
    elif event is None:
        pass
    elif kind == "body" and isinstance(event.get("body"), dict):
        event["body"]["reason"] = "forged"
        lines[k] = dump(event)
    elif kind == "envelope":
        event["actor"] = "operator:mallory"
        lines[k] = dump(event)
    elif kind == "rehash" and isinstance(event.get("prev"), str):
        event["actor"] = "operator:mallory"
        event["hash"] = line_hash(event)
        lines[k] = dump(event)
    elif kind == "gap":
        event["seq"] = event.get("seq", 0) + 1 if isinstance(event.get("seq"), int) else 5
        if "prev" in event and isinstance(event["prev"], str):
            event["hash"] = line_hash(event)
        lines[k] = dump(event)
    elif kind == "renumber":                                  # a consistent chain with a gap
        parsed = []
        for line in lines:
            try:
                parsed.append(json.loads(line))
            except ValueError:
                return lines
        if not all(isinstance(e, dict) and isinstance(e.get("seq"), int) and isinstance(e.get("prev"), str)
                   and isinstance(e.get("hash"), str) for e in parsed):
            return lines
        for e in parsed[k:]:
            e["seq"] += 1
        rechain(parsed, k, parsed[k - 1]["hash"] if k else GENESIS)
        return [dump(e) for e in parsed]
    elif kind == "dupkey":
        lines[k] = raw[:-1] + b',"seq":' + str(event.get("seq")).encode() + b"}"
    elif kind == "dupkey_nested":
        lines[k] = raw.replace(b'"attribute":"a",', b'"attribute":"a","attribute":"a",', 1)
    elif kind in ("foreign_spaces", "foreign_order", "foreign_ascii", "foreign_digest"):
        if kind == "foreign_spaces":
            text = json.dumps(event, ensure_ascii=False)
        elif kind == "foreign_order":
            text = json.dumps(dict(reversed(list(event.items()))), separators=(",", ":"),
                              ensure_ascii=False)
        elif kind == "foreign_ascii":
            text = json.dumps(event, sort_keys=True, separators=(",", ":"))
        else:                      # the digest taken over the foreign writer's own body bytes
            body = event.get("body")
            if not isinstance(body, dict) or not isinstance(event.get("prev"), str):
                return lines
            body_text = json.dumps(dict(reversed(list(body.items()))), ensure_ascii=False)
            body_bytes = body_text.encode("utf-8", "surrogatepass")
            event["body_digest"] = hashlib.sha256(body_bytes).hexdigest()
            event["hash"] = line_hash(event)
            lines[k] = dump(event).replace(b',"body":' + canonical(body) + b',"body_digest"',
                                           b',"body":' + body_bytes + b',"body_digest"', 1)
            return lines
        lines[k] = text.encode("utf-8", "surrogatepass")
    elif kind == "unchain_prefix":
        parsed = []
        for line in lines:
            try:
                parsed.append(json.loads(line))
            except ValueError:
                return lines
        for e in parsed[:k + 1]:
            if isinstance(e, dict):
                e.pop("prev", None), e.pop("hash", None)
        rechain(parsed, k + 1, GENESIS)
        return [dump(e) for e in parsed]
    elif kind == "unchain_middle":
        event.pop("prev", None), event.pop("hash", None)
        lines[k] = dump(event)
    elif kind == "one_of_prev_hash":
        event.pop("hash", None)
        lines[k] = dump(event)
    elif kind == "bad_envelope":
        change = draw(st.sampled_from(["op", "actor", "seq_str", "seq_bool", "prev", "body",
                                       "digest", "at_empty", "memory_id"]))
        if change == "op":
            event["op"] = "delete"
        elif change == "actor":
            event.pop("actor", None)
        elif change == "seq_str":
            event["seq"] = str(event.get("seq"))
        elif change == "seq_bool":
            event["seq"] = True
        elif change == "prev":
            event["prev"] = "XYZ"
        elif change == "body":
            event["body"] = ["not", "an", "object"]
        elif change == "digest":
            event["body_digest"] = "g" * 64
        elif change == "at_empty":
            event["at"] = ""
        else:
            event["memory_id"] = 7
        lines[k] = dump(event)
    elif kind == "deep":
        if isinstance(event.get("body"), dict) and isinstance(event["body"].get("after"), dict):
            value: list = []
            node = value
            for _ in range(300):
                node.append([])
                node = node[0]
            event["body"]["after"]["value"] = value
            event["body_digest"] = hashlib.sha256(canonical(event["body"])).hexdigest()
            if isinstance(event.get("prev"), str):
                event["hash"] = line_hash(event)
            lines[k] = dump(event)
    return lines


def materialize(root, lines, tail, certs) -> None:
    write(root, lines, tail)
    if certs:
        (root / "certificates").mkdir()
        (root / "certificates" / "C1.json").write_bytes(canonical(CERTIFICATE))


# -- the differential tests -----------------------------------------------------------------------

@pytest.mark.heavy
@settings(max_examples=int(os.environ.get("VERIFY_EXAMPLES", "300")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                 HealthCheck.data_too_large])
@given(case=stores(), chunk=st.integers(1, 3000))
def test_chunked_verify_equals_the_sequential_walk(tmp_path_factory, case, chunk):
    """Random logs of our writer (values of every kind, unknown fields, batches), erased with
    or without a matching erase event and certificate, then damaged up to three times (every
    kind in DAMAGE), with or without a torn tail and an expected head: the chunked walk (a line
    a chunk, random chunks, one chunk) equals the reference, whole document and every problem."""
    lines, tail, head, certs = case
    root = tmp_path_factory.mktemp("s")
    materialize(root, lines, tail, certs)
    reference = assert_same(root, head, chunks=(1, chunk, None))
    stats = verify_parallel.Stats()
    verify_parallel.verify(store_paths(root), workers=0, chunk_bytes=chunk, stats=stats)
    hypothesis.event(f"rounds: {min(stats.rounds, 3)}")
    hypothesis.event("fast lines: " + ("none" if stats.slow == len(lines) else "some" if stats.slow else "all"))
    if isinstance(reference, dict):
        hypothesis.event("ok" if reference["doc"]["ok"] else f"first problem: {reference['doc']['problem'][:28]}")


@pytest.fixture
def long_log(tmp_path):
    """A few hundred intact lines of our own writer (with a batch), and a helper to damage it."""
    drafts_ = []
    for i in range(300):
        after = entry(f"M{i % 40}", attribute=f"a{i % 7}", value=[i, f"v{i}", None] if i % 3 else f"v{i}")
        drafts_.append({"actor": "agent:1", "op": "write" if i < 40 else "update",
                        "memory_id": after["id"], "batch": "B" if 100 <= i < 110 else None,
                        "body": {"before": None, "after": after, "reason": None, "salt": "cd" * 16}})
    for d in drafts_[100:110]:
        d["batch_size"] = 10
    events = chain(drafts_)
    root = tmp_path / "long"
    write(root, [dump(e) for e in events])
    return root, events


def test_our_writers_lines_all_take_the_fast_path(long_log, tmp_path):
    root, events = long_log
    stats = verify_parallel.Stats()
    report = verify_parallel.verify(store_paths(root), workers=0, chunk_bytes=5000, stats=stats)
    assert report.ok and stats.slow == 0 and stats.chunks > 10 and stats.rounds == 1
    store = write_store(tmp_path / "w", [(f"2025-01-0{i}T00:00:00Z", "write", entry(f"M{i}"))
                                         for i in range(1, 8)])
    stats = verify_parallel.Stats()
    assert verify_parallel.verify(store_paths(store), workers=0, chunk_bytes=1, stats=stats).ok
    assert stats.slow == 0 and stats.chunks == 7


def test_every_sample_store_takes_the_fast_path(sample):
    for name in ("branch-contamination", "moved-city", "multi-tenant", "refund-window", "report-language"):
        stats = verify_parallel.Stats()
        assert verify_parallel.verify(store_paths(sample(name)), workers=0, stats=stats).ok
        assert stats.slow == 0, name
        assert_same(sample(name))


@pytest.mark.parametrize("where", [0, 1, 99, 100, 101, 150, 298, 299])
@pytest.mark.parametrize("kind", ["delete", "rehash", "envelope", "malformed", "unchain_middle", "swap"])
def test_damage_at_chunk_borders_in_a_pool_of_processes(long_log, kind, where):
    root, events = long_log
    lines = [dump(e) for e in events]
    recorded = f"{where + 1}:{events[where]['hash']}"
    if kind == "delete":
        del lines[where]
    elif kind == "rehash":
        events[where]["actor"] = "operator:mallory"
        events[where]["hash"] = line_hash(events[where])
        lines[where] = dump(events[where])
    elif kind == "envelope":
        events[where]["actor"] = "operator:mallory"
        lines[where] = dump(events[where])
    elif kind == "malformed":
        lines[where] = lines[where][:40]
    elif kind == "unchain_middle":
        events[where].pop("prev"), events[where].pop("hash")
        lines[where] = dump(events[where])
    else:
        other = (where + 1) % len(lines)
        lines[where], lines[other] = lines[other], lines[where]
    write(root, lines)
    size = (root / "events.jsonl").stat().st_size
    reference = assert_same(root, recorded, workers=2,
                            chunks=(size // 3 + 1, 4000, 1000))
    assert reference["doc"]["ok"] is False


def test_a_deleted_line_early_costs_rounds_not_a_different_answer(long_log):
    root, events = long_log
    lines = [dump(e) for e in events]
    del lines[3]
    write(root, lines)
    stats = verify_parallel.Stats()
    got = verify_parallel.verify(store_paths(root), workers=0, chunk_bytes=20_000, stats=stats)
    assert everything(got) == everything(audit.verify_sequential(store_paths(root)))
    assert stats.rounds >= 2 and stats.chunks > 5


def test_a_process_with_threads_uses_the_forkserver(long_log):
    """A process that has other threads (DuckDB's, a UI's) must not fork: the forkserver
    walks the chunks, with the same answer."""
    root, events = long_log
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert verify_parallel._context().get_start_method() in ("forkserver", "spawn")
        assert_same(root, workers=2, chunks=(20_000,))
    finally:
        stop.set()
        thread.join()
    if verify_parallel.thread_count() == 1:
        assert verify_parallel._context().get_start_method() == "fork"


def test_the_environment_forces_chunks_and_workers(long_log, monkeypatch):
    root, _ = long_log
    monkeypatch.setenv(verify_parallel.ENV_CHUNK, "3000")
    monkeypatch.setenv(verify_parallel.ENV_WORKERS, "0")
    stats = verify_parallel.Stats()
    assert verify_parallel.verify(store_paths(root), stats=stats).ok
    assert stats.chunks > 20 and stats.workers == 0


def test_an_empty_and_a_torn_only_log(tmp_path):
    root = tmp_path / "e"
    write(root, [])
    assert_same(root)
    write(root, [], b'{"seq":1')
    assert_same(root)
    assert_same(root, "1:" + "0" * 64)


@example(text="[" * 250)
@example(text='\\"')
@given(text=st.text(alphabet='[{"\\/\n\x1f\x7fé😀', max_size=300))
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_strings_at_the_edge_of_the_fast_grammar(tmp_path_factory, text):
    """Brackets enough to send jsonsafe to its iterative parser, escapes, non-ASCII: the fast
    path and the reference agree."""
    root = tmp_path_factory.mktemp("t")
    after = {**ENTRY_DEFAULTS, **entry("M1", value=text, context=text)}
    event = seal({"seq": 1, "at": "2025-01-01T00:00:00Z", "actor": "agent:1", "op": "write",
                  "memory_id": "M1", "batch": None,
                  "body": {"before": None, "after": after, "reason": text, "salt": "00"}}, GENESIS)
    write(root, [dump(event)])
    reference = assert_same(root)
    assert reference["doc"]["ok"] is True


def test_the_command_line_forced_into_chunks_answers_as_the_reference(long_log):
    import subprocess
    import sys

    root, events = long_log
    lines = [dump(e) for e in events]
    lines[120] = lines[120][:-5]
    write(root, lines)
    env = {**os.environ, verify_parallel.ENV_CHUNK: "7000", verify_parallel.ENV_WORKERS: "2"}
    out = subprocess.run([sys.executable, "-m", "inspector", "audit", str(root), "--verify", "--json"],
                         capture_output=True, text=True, env=env,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.returncode == 1
    assert json.loads(out.stdout) == audit.verify_sequential(store_paths(root)).as_json()


@pytest.mark.alone
def test_a_line_that_fails_late_fails_fast():
    """The fast grammar must not backtrack through the ways of matching the values before the
    point where a line stops matching (that once took minutes a line)."""
    import time

    after = entry("M1", tags=["x"], justification=["y"], confidence=0.5)
    event = seal({"seq": 1, "at": "2025-01-01T00:00:00Z", "actor": "agent:1", "op": "write",
                  "memory_id": "M1", "batch": None,
                  "body": {"before": after, "after": after, "reason": None, "salt": "00"}}, GENESIS)
    line = dump(event) + b"\n"
    assert fastline.FAST.match(line)
    for bad in (line[:-2] + b"x}\n", line[:-1] + b" \n", line.replace(b'"salt":"00"', b'"salt":"00",', 1),
                line.replace(b',"seq":1}', b',"seq":01}')):
        start = time.perf_counter()
        assert fastline.FAST.match(bad) is None
        assert time.perf_counter() - start < 0.05


@pytest.mark.parametrize("value, fast", [
    ({"city": "Lyon", "since": 2021}, True),
    ({"a": {"b": "x"}, "z": [1, "x"]}, True),
    ([{"a": 1}, {}], True),
    ({}, True),
    ({"": {"{": "}"}}, True),
    ({"a": 1, "body": {"x": 1}, "body_digest": "0", "hash": "1"}, True),   # the keys audit slices at
    ({"a": {"b": [1]}}, False),                       # deeper than the fast grammar goes
    ({"a": [[1]]}, False),
])
def test_object_values_take_the_fast_path_unless_too_deep(tmp_path, value, fast):
    after = entry("M1", value=value)
    events = chain([{"actor": "agent:1", "op": "write", "memory_id": "M1", "batch": None,
                     "body": {"before": after, "after": after, "reason": None, "salt": "00"}}] * 3)
    root = tmp_path / "o"
    write(root, [dump(e) for e in events])
    stats = verify_parallel.Stats()
    assert verify_parallel.verify(store_paths(root), workers=0, stats=stats).ok
    assert (stats.slow == 0) is fast
    assert_same(root)


def test_the_objects_grammar_is_skipped_after_misses_and_tried_again(tmp_path):
    """100 lines too deep for it, then 200 it takes: it is tried on lines 1-32 (missed), then
    on one line in 64 (97, then 162, which it takes), and on every line after that."""
    assert (verify_parallel.MISSES_BEFORE_SKIP, verify_parallel.SKIPS_BETWEEN_TRIES) == (32, 64)
    deep, flat = entry("M1", value={"a": {"b": [1]}}), entry("M1", value={"a": {"b": 1}})
    body = lambda state: {"actor": "agent:1", "op": "write", "memory_id": "M1", "batch": None,  # noqa: E731
                          "body": {"before": None, "after": state, "reason": None, "salt": "00"}}
    root = tmp_path / "o"
    write(root, [dump(e) for e in chain([body(deep)] * 100 + [body(flat)] * 200)])
    stats = verify_parallel.Stats()
    assert verify_parallel.verify(store_paths(root), workers=0, stats=stats).ok
    assert (stats.chunks, stats.slow) == (1, 100 + (161 - 100))
    assert_same(root)


@pytest.mark.parametrize("duplicate", [b'{"k":1,"k":2}', b'{"a":{"k":1,"k":1}}', b'[{"k":1,"k":2}]',
                                       b'{"k":1,"j":{"x":[1]},"k":3}'])
@pytest.mark.parametrize("where", ["after", "before"])
def test_a_duplicated_key_inside_a_value_is_found_as_the_reference_finds_it(tmp_path, duplicate, where):
    after = entry("M1", value={"q": 1})
    event = chain([{"actor": "agent:1", "op": "write", "memory_id": "M1", "batch": None,
                    "body": {"before": after, "after": after, "reason": None, "salt": "00"}}])[0]
    raw = dump(event)
    position = raw.index(b'"value":{"q":1}', raw.index(b'"%s":' % where.encode()))
    raw = raw[:position] + b'"value":' + duplicate + raw[position + len(b'"value":{"q":1}'):]
    body = raw[raw.index(b',"body":') + 8:raw.rindex(b',"body_digest":"')]
    raw = raw.replace(event["body_digest"].encode(), hashlib.sha256(body).hexdigest().encode())
    root = tmp_path / "d"
    write(root, [raw])
    reference = assert_same(root)
    assert "duplicate key" in reference["doc"]["problem"]


def test_a_log_renamed_over_while_verifying_is_not_mixed_in(tmp_path):
    """Every chunk reads the file the walk opened (as the reference reads its one open file),
    also from a process that did not inherit the descriptor: not a log renamed over its path
    since (an erasure's rewrite)."""
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"old\n")
    fd = os.open(path, os.O_RDONLY)
    try:
        stat = os.fstat(fd)
        (tmp_path / "new").write_bytes(b"new\n")
        os.replace(tmp_path / "new", path)
        reopened, own = verify_parallel._open(("proc", os.getpid(), fd, stat.st_dev, stat.st_ino, str(path)))
        assert own and os.pread(reopened, 10, 0) == b"old\n"
        os.close(reopened)
        with pytest.raises(OSError, match="replaced while it was verified"):
            verify_parallel._open(("proc", 999_999_999, fd, stat.st_dev, stat.st_ino, str(path)))
    finally:
        os.close(fd)


def _line_with_body(body: bytes, memory_id: str = "M1") -> bytes:
    """One chained line whose body is these bytes (sealed over them, as a foreign writer that
    canonicalizes its own way would write it)."""
    event = chain([{"actor": "agent:1", "op": "write", "memory_id": memory_id, "batch": None,
                    "body": {"after": {"id": memory_id}}}])[0]
    event["body_digest"] = hashlib.sha256(body).hexdigest()
    event["hash"] = line_hash(event)
    raw = dump(event)
    start, end = raw.index(b',"body":') + 8, raw.rindex(b',"body_digest":"')
    return raw[:start] + body + raw[end:]


@pytest.mark.parametrize("state", [
    b'{"id":"M1"}',
    b'{"attribute":"phone","entity":"u","id":"M1","value":"x"}',
    b'{"authority":2,"id":"M1","kind":"claim","status":"active","tags":["a"],"value":{"a":[1]}}',
])
def test_a_foreign_writers_state_without_optional_keys_takes_the_fast_path(tmp_path, state):
    body = b'{"after":' + state + b',"before":{},"reason":null,"salt":"00"}'
    root = tmp_path / "f"
    write(root, [_line_with_body(body)])
    stats = verify_parallel.Stats()
    assert verify_parallel.verify(store_paths(root), workers=0, stats=stats).ok
    assert stats.slow == 0
    assert assert_same(root)["doc"]["ok"] is True


@pytest.mark.parametrize("state, problem", [
    (b'{"id":"M1","kind":"a","kind":"b"}', "duplicate key 'kind'"),
    (b'{"id":"M1","value":1,"value":1}', "duplicate key 'value'"),
    (b'{"id":"M1","kind":"a",}', "not a valid JSON object"),
    (b'{"id":"M1""kind":"a"}', "not a valid JSON object"),
    (b'{,"id":"M1"}', "not a valid JSON object"),
    (b'{"kind":"a","id":"M1"}', None),                  # valid, keys out of order: the reference
    (b'{"id":"M1","status":"erased"}', 'status "erased" is only written by an erase event'),
    (b'{"kind":"a"}', "body.after.id does not match memory_id"),
])
def test_a_state_outside_the_fast_grammar_is_judged_by_the_reference(tmp_path, state, problem):
    body = b'{"after":' + state + b',"before":null,"reason":null,"salt":"00"}'
    root = tmp_path / "g"
    write(root, [_line_with_body(body)])
    stats = verify_parallel.Stats()
    verify_parallel.verify(store_paths(root), workers=0, stats=stats)
    assert stats.slow == 1
    reference = assert_same(root)
    if problem is None:
        assert reference["doc"]["ok"] is True
    else:
        assert problem in reference["doc"]["problem"]


def test_a_batch_cut_short_with_lines_after_it_is_a_problem_in_both_walks(tmp_path):
    """helper-63 #4: the first event of a batch of two, then another tool's line after it (the
    inspector's own writer sets an unfinished trailing batch aside; another tool may not):
    every reader applied the cut batch's first event (loaders now refuse it:
    test_batch_load.py), and the audit passed it. Walked in
    chunks that cut the batch, or not, the report is the reference's."""
    def draft(memory_id: str, batch: str | None, size: int | None) -> dict:
        out = {"actor": "operator:alice", "op": "write", "memory_id": memory_id, "batch": batch,
               "body": {"before": None, "after": entry(memory_id, value=memory_id),
                        "reason": None, "salt": "ab" * 16}}
        if size is not None:
            out["batch_size"] = size
        return out
    events = chain([draft("M1", None, None), draft("M2", "B2", 3), draft("M3", "B2", 3),
                    draft("M4", "B3", 2), draft("M5", "B3", 2), draft("M6", None, None)])
    write(tmp_path / "s", [dump(e) for e in events])
    report = assert_same(tmp_path / "s", chunks=(1, 97, 300, None))
    assert report["all"] == [(2, "seq 2: batch B2 has 2 of its 3 events, and lines follow it: it "
                                 "was cut short, and an action is applied whole or not at all")]


def test_a_blank_line_inside_a_batch_is_named_first_by_audit_as_by_the_loader(tmp_path):
    """A blank line in the middle of a batch: the loader said "line 4: empty line", the audit
    first "seq 2: batch B2 … was cut short" (and "line 4 is not a valid JSON object (Expecting
    value …)"). format.md: no blank lines; the audit names that line first, in the loader's
    words, in either walk."""
    def draft(memory_id: str, batch: str | None, size: int | None) -> dict:
        out = {"actor": "operator:alice", "op": "write", "memory_id": memory_id, "batch": batch,
               "body": {"before": None, "after": entry(memory_id, value=memory_id),
                        "reason": None, "salt": "ab" * 16}}
        if size is not None:
            out["batch_size"] = size
        return out
    events = chain([draft("M1", None, None), draft("M2", "B2", 4), draft("M3", "B2", 4),
                    draft("M4", "B2", 4), draft("M5", "B2", 4), draft("M6", None, None)])
    lines = [dump(e) for e in events]
    write(tmp_path / "s", lines[:3] + [b""] + lines[3:])
    report = assert_same(tmp_path / "s", chunks=(1, 97, 300, None))
    assert (report["doc"]["first_bad_seq"], report["doc"]["problem"]) == (4, "line 4: empty line")
    with pytest.raises(LogProblem) as refused:
        Store(tmp_path / "s", warn=False)
    assert (refused.value.line, refused.value.reason) == (4, "empty line")
