"""A cold load reads every line as audit does (issue 10: "a duplicated key loads fine but audit
rejects it"). DuckDB's fast reader keeps the first of a duplicated key's values without a word;
the strict scan beside it (inspector/store/strictscan.py) finds the line, and the load refuses
the log naming it, as audit --verify does — in the head line, in a middle line, in a middle
range of a log read in ranges, inside a value, with the scan in a child process or not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.store import jsonsafe, strictscan
from inspector.store.append import LogWriter, event_draft, init_store
from inspector.store.errors import LogProblem
from inspector.store.load import Store
from storegen import deep, entry


def write_store(root: Path, count: int, spaced: bool = False) -> Path:
    """`count` chained writes; `spaced`: every line as another writer might spell it (spaces
    after "," and ":", non-ASCII escaped), which the hash chain allows."""
    paths = init_store(root)
    with LogWriter(paths) as writer:
        writer.append([event_draft("write", f"M{i}", "agent:x",
                                   after=entry(f"M{i}", "svc", f"k{i}", {"n": i, "é": ["a"]}))
                       for i in range(1, count + 1)])
    log = root / "events.jsonl"
    if spaced:
        log.write_bytes(b"".join(json.dumps(json.loads(line)).encode() + b"\n"
                                 for line in log.read_bytes().splitlines()))
    return log


def edit_line(log: Path, line_no: int, old: bytes, new: bytes) -> None:
    lines = log.read_bytes().splitlines(keepends=True)
    assert old in lines[line_no - 1]
    lines[line_no - 1] = lines[line_no - 1].replace(old, new, 1)
    log.write_bytes(b"".join(lines))


def audit_first_bad(root: Path) -> int:
    done = subprocess.run([sys.executable, "-m", "inspector", "audit", str(root), "--verify",
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    return json.loads(done.stdout)["first_bad_seq"]


# -- the line test ------------------------------------------------------------------------

CANONICAL = jsonsafe.dumps_canonical({"a": 1, "b": {"c": [1, {"d": "é\u2028"}]}, "e": None})


@pytest.mark.parametrize("line,refused", [
    (CANONICAL, False),
    (b'{"b":1, "a":2}', False),                          # not canonical, but no duplicate
    (b'{"a":1e5,"b":"\\u00e9\\/"}', False),              # spellings orjson writes otherwise
    (b'{"a":1,"a":2}', True),
    (b'{"a":1,"\\u0061":2}', True),                      # the same key, spelt twice
    (b'{"v":{"x":[{"k":1,"k":1}]}}', True),             # deep inside a value
    (b'\xef\xbb\xbf{"a":1}', True),                      # a byte-order mark
    (b'{"a":"\\ud800"}', True),                          # a lone surrogate escape
    (b'{"a":NaN}', False),                               # Python reads it: the entry's problem
    (b'{"a":', False),                                   # not JSON: the fast read refuses it
    (b'{"a":"\xff"}', False),                            # not UTF-8: likewise
])
def test_a_line_is_refused_exactly_when_the_strict_reading_refuses_it(line, refused):
    assert strictscan.refused(line) is refused


def test_values_deeper_than_any_parser_s_stack_are_judged_without_it():
    deep_value = jsonsafe.dumps_canonical({"v": deep(3000)})
    assert strictscan.refused(deep_value) is False
    assert strictscan.refused(deep_value[:-1] + b',"v":1}') is True


@pytest.mark.parametrize("sep", [b":", b": "], ids=["canonical", "another-writer"])
def test_the_scan_names_the_offset_of_the_first_refused_line(tmp_path, sep):
    lines = [b'{"a"%b1}' % sep, b'{"b"%b2}' % sep, b'{"c"%b3,"c"%b4}' % (sep, sep),
             b'{"d"%b5,"d"%b6}' % (sep, sep)]
    path = tmp_path / "log"
    path.write_bytes(b"\n".join(lines) + b"\n")
    third, fourth = len(lines[0]) + len(lines[1]) + 2, sum(map(len, lines[:3])) + 3
    fd = os.open(path, os.O_RDONLY)
    try:
        assert strictscan.first_refused(fd, 0, path.stat().st_size) == third
        assert strictscan.first_refused(fd, 0, third) is None
        assert strictscan.first_refused(fd, fourth, path.stat().st_size) == fourth
    finally:
        os.close(fd)


# -- the cold load ------------------------------------------------------------------------

@pytest.mark.parametrize("spaced", [False, True], ids=["canonical", "another-writer"])
@pytest.mark.parametrize("child", [False, True], ids=["inline", "child-process"])
def test_a_duplicated_key_in_a_middle_line_is_refused_by_a_cold_load_as_audit_does(
        tmp_path, monkeypatch, child, spaced):
    if child:
        monkeypatch.setattr(strictscan, "INLINE_BYTES", 0)
    root = tmp_path / "s"
    log = write_store(root, 40, spaced)
    sep = b": " if spaced else b":"
    edit_line(log, 17, b'"op"' + sep + b'"write"', b'"op"' + sep + b'"write", "op": "erase"')
    with pytest.raises(LogProblem) as refused:
        Store(root, warn=False)
    assert "events.jsonl line 17: not valid JSON (duplicate key 'op')" in str(refused.value)
    assert audit_first_bad(root) == 17
    assert not (root / ".inspector").exists() or not any((root / ".inspector").glob("view*"))


def test_in_a_log_read_in_ranges_the_refusal_names_the_line_in_its_middle_range(
        tmp_path, monkeypatch):
    root = tmp_path / "s"
    log = write_store(root, 60)
    edit_line(log, 31, b'"n":31', b'"n":31,"n":32')
    monkeypatch.setenv("INSPECTOR_COLD_CHUNK_BYTES", "6000")     # a few lines a range
    monkeypatch.setattr(strictscan, "INLINE_BYTES", 0)
    with pytest.raises(LogProblem) as refused:
        Store(root, warn=False)
    assert "events.jsonl line 31: not valid JSON (duplicate key 'n')" in str(refused.value)
    assert audit_first_bad(root) == 31


def test_a_refused_line_before_another_problem_is_the_one_named(tmp_path, monkeypatch):
    """The fast read stops at a seq gap at line 50; the strict scan found a duplicated key at
    line 12 first: the refusal names line 12, as audit names seq 12."""
    root = tmp_path / "s"
    log = write_store(root, 60)
    edit_line(log, 12, b'"id":"M12"', b'"id":"M12","id":"M12"')
    edit_line(log, 50, b'"seq":50', b'"seq":77')
    with pytest.raises(LogProblem) as refused:
        Store(root, warn=False)
    assert "events.jsonl line 12: not valid JSON (duplicate key 'id')" in str(refused.value)
    assert audit_first_bad(root) == 12


def test_a_clean_log_loads_the_same_with_the_scan_in_a_child_process(tmp_path, monkeypatch):
    root = tmp_path / "s"
    write_store(root, 30)
    monkeypatch.setattr(strictscan, "INLINE_BYTES", 0)
    monkeypatch.setattr(strictscan.Scan, "PARTS", 3)
    store = Store(root, warn=False)
    assert store.state.seq == 30
    assert store.con.execute("SELECT count(*) FROM entries").fetchone()[0] == 30


def test_a_child_that_dies_is_replaced_by_the_scan_in_the_loading_process(tmp_path, monkeypatch):
    root = tmp_path / "s"
    log = write_store(root, 20)
    edit_line(log, 9, b'"n":9', b'"n":9,"n":9')
    monkeypatch.setattr(strictscan, "INLINE_BYTES", 0)
    scan = strictscan.Scan(log, 0, log.stat().st_size)
    assert len(scan._procs) == min(strictscan.Scan.PARTS, os.cpu_count())
    for proc, _, _ in scan._procs:
        proc.kill()
    offset = scan.result()
    assert offset == sum(len(line) for line in log.read_bytes().splitlines(keepends=True)[:8])


def test_a_child_that_answers_other_than_an_offset_is_replaced_too(tmp_path, monkeypatch):
    root = tmp_path / "s"
    log = write_store(root, 20)
    edit_line(log, 12, b'"n":12', b'"n":12,"n":12')
    monkeypatch.setattr(strictscan, "INLINE_BYTES", 0)
    monkeypatch.setattr(sys, "executable", "/bin/echo")     # prints its arguments, exit 0
    offset = strictscan.Scan(log, 0, log.stat().st_size).result()
    assert offset == sum(len(line) for line in log.read_bytes().splitlines(keepends=True)[:11])
