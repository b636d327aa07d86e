"""`audit --verify`: every tampering is found at its first affected seq."""

from __future__ import annotations

import json

import pytest

from logtools import edit_line, read_lines, write_lines
from storegen import entry, write_store
from inspector.store.audit import verify
from inspector.store.logfile import store_paths


@pytest.fixture
def store(tmp_path):
    events = [(f"2025-01-0{i}T00:00:00Z", "write", entry(f"M{i}", attribute=f"a{i}", value=f"v{i}"))
              for i in range(1, 8)]
    return write_store(tmp_path / "s", events)


def report(store, expect_head=None):
    return verify(store_paths(store), expect_head).as_json()


def head_of(store, seq):
    return json.loads(read_lines(store)[seq - 1])["hash"]


def test_an_intact_log_verifies(store):
    doc = report(store)
    assert doc["ok"] is True
    assert (doc["events"], doc["first_bad_seq"], doc["redacted"], doc["unchained"]) == (7, None, 0, 0)
    assert doc["head"] == f"7:{head_of(store, 7)}"


def test_a_changed_body_is_found_at_its_seq(store):
    edit_line(store, 4, lambda e: e["body"]["after"].__setitem__("value", "forged"))
    doc = report(store)
    assert (doc["ok"], doc["first_bad_seq"]) == (False, 4)
    assert doc["problem"] == "seq 4: body does not match body_digest (the body was changed)"


def test_a_changed_header_is_found_at_its_seq(store):
    edit_line(store, 5, lambda e: e.__setitem__("actor", "operator:mallory"))
    doc = report(store)
    assert (doc["first_bad_seq"], doc["problem"]) == (5, "seq 5: hash does not match the line (a header was changed)")


def test_a_rehashed_forgery_is_reported_at_itself_naming_both_seqs(store):
    from inspector.store.chain import line_hash

    def forge(e):
        e["actor"] = "operator:mallory"
        e["hash"] = line_hash(e)
    edit_line(store, 3, forge)
    doc = report(store)
    assert (doc["first_bad_seq"], doc["problem"]) == (
        3, "seq 3 or seq 4 was rewritten: seq 4's prev does not match the hash of seq 3, whose "
           "own digests are consistent (a line edited and re-hashed)")


@pytest.mark.parametrize("damage, first_bad", [
    (lambda ls: ls.__delitem__(2), 3),                         # delete seq 3
    (lambda ls: ls.__setitem__(slice(2, 4), [ls[3], ls[2]]), 3),  # swap 3 and 4
    (lambda ls: ls.insert(3, ls[2]), 4),                      # duplicate 3
    (lambda ls: ls.__setitem__(4, b"{not json"), 5),          # malformed line in the middle
    (lambda ls: ls.__setitem__(4, b""), 5),                   # emptied line
])
def test_moved_lines_are_found_at_the_first_affected_seq(store, damage, first_bad):
    lines = read_lines(store)
    damage(lines)
    write_lines(store, lines)
    doc = report(store)
    assert (doc["ok"], doc["first_bad_seq"]) == (False, first_bad)


def test_expect_head_catches_lines_cut_from_the_end(store):
    recorded = f"7:{head_of(store, 7)}"
    assert report(store, recorded)["ok"] is True
    write_lines(store, read_lines(store)[:-2])
    doc = report(store, recorded)
    assert (doc["ok"], doc["first_bad_seq"]) == (False, 6)
    assert "the log ends at seq 5, before the expected head 7" in doc["problem"]


def test_expect_head_catches_a_rewritten_line(store):
    doc = report(store, f"3:{'0' * 64}")
    assert (doc["ok"], doc["first_bad_seq"], doc["problem"]) == (False, 3, "seq 3 does not have the expected head hash")


def test_an_unchained_prefix_is_not_ok(store):
    for seq in (1, 2):
        edit_line(store, seq, lambda e: (e.pop("prev"), e.pop("hash")))
    edit_line(store, 3, lambda e: e.__setitem__("prev", "0" * 64))
    from inspector.store.chain import line_hash
    lines = read_lines(store)
    # re-chain from seq 3 on, as a tool that starts chaining after an imported prefix would
    prev = "0" * 64
    for i in range(2, 7):
        e = json.loads(lines[i])
        e["prev"] = prev
        e["hash"] = prev = line_hash(e)
        lines[i] = json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    write_lines(store, lines)
    doc = report(store)
    assert (doc["ok"], doc["unchained"], doc["first_bad_seq"]) == (False, 2, 1)
    assert doc["problems"] == [{"seq": 1, "problem": "seq 1 to 2 are unchained (written by another tool): that prefix is not tamper-evident"}]


def test_duplicate_keys_are_refused(store):
    lines = read_lines(store)
    lines[1] = lines[1][:-1] + b',"seq":99}'
    write_lines(store, lines)
    doc = report(store)
    assert doc["first_bad_seq"] == 2
    assert "duplicate key 'seq'" in doc["problem"]


def test_a_torn_tail_is_not_a_chain_problem(store):
    lines = read_lines(store)
    write_lines(store, lines + [b'{"seq":8'], newline_at_end=False)
    doc = report(store)
    assert (doc["ok"], doc["events"], doc["torn_bytes"]) == (True, 7, 8)
