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


def test_an_erase_event_that_replaced_no_body_is_a_problem(tmp_path):
    # another writer appended an erase event and rewrote nothing: every command shows M2 as
    # erased while its value is still in the log, and the chain verified 'ok'
    erased = {"id": "M2", "status": "erased", "certificate": "cert-nope",
              "certificate_digest": "0" * 64, "subject_digest": None, "subject_salt": None}
    store = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", entry("M1")),
                                         ("2025-01-02T00:00:00Z", "write", entry("M2", value="Baker Street")),
                                         ("2025-01-03T00:00:00Z", "erase", erased)])
    doc = report(store)
    assert (doc["ok"], doc["first_bad_seq"]) == (False, 3)
    assert doc["problem"] == ("seq 3: erase event of M2 (certificate cert-nope), but no earlier "
                              "body of M2 was replaced by it: the erased state is still in the log")


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


# -- the chain's own formulas, and the messages of each kind of break ---------------------------

def test_the_hashes_follow_the_design_formula_computed_here(store):
    """hash = SHA-256(prev + "\\n" + canonical(line without hash and body)), body_digest =
    SHA-256(canonical(body)), written here with hashlib and json alone."""
    import hashlib

    def canonical(x):
        return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    prev = "0" * 64
    for raw in read_lines(store):
        event = json.loads(raw)
        header = {k: v for k, v in event.items() if k not in ("hash", "body")}
        assert event["prev"] == prev
        assert event["body_digest"] == hashlib.sha256(canonical(event["body"])).hexdigest()
        assert event["hash"] == hashlib.sha256(prev.encode() + b"\n" + canonical(header)).hexdigest()
        prev = event["hash"]


@pytest.mark.parametrize("name", ["branch-contamination", "moved-city", "multi-tenant",
                                  "refund-window", "report-language"])
def test_every_sample_store_verifies_with_its_recorded_head(sample, name):
    """The samples were chained when they were written: a changed formula breaks them."""
    root = sample(name)
    lines = read_lines(root)
    doc = report(root, f"{len(lines)}:{json.loads(lines[-1])['hash']}")
    assert (doc["ok"], doc["events"], doc["problems"]) == (True, len(lines), [])


def test_prev_and_hash_must_be_digests(store):
    edit_line(store, 2, lambda e: (e.__setitem__("prev", "xyz"), e.__setitem__("hash", "abc")))
    doc = report(store)
    assert doc["problems"][0] == {"seq": 2, "problem": 'line 2: fields "prev" and "hash" must be SHA-256 digests (64 lower-case hex digits)'}


def test_an_envelope_problem_is_named_and_the_chain_still_checked_after_it(store):
    edit_line(store, 2, lambda e: e.__setitem__("op", "delete"))       # hash kept: still chained
    edit_line(store, 3, lambda e: e.__setitem__("prev", "1" * 64))      # and seq 3 breaks the link
    doc = report(store)
    assert [p["seq"] for p in doc["problems"]] == [2, 3, 3]
    assert doc["problems"][0]["problem"] == 'line 2: field "op" is missing or unknown'
    assert doc["problems"][1]["problem"].startswith("seq 3: prev does not match the hash of seq 2")


def test_a_swapped_line_is_named(store):
    lines = read_lines(store)
    lines[2], lines[3] = lines[3], lines[2]
    write_lines(store, lines)
    assert report(store)["problem"] == ("line 3 holds seq 4 (expected 3): a line was deleted, "
                                        "swapped, duplicated or inserted")


def test_an_unreadable_chained_line_keeps_the_log_chained(store):
    """A first line that cannot be parsed but was chained (it mentions "hash") makes an
    unchained line after it a chain problem, not an unchained prefix."""
    lines = read_lines(store)
    second = json.loads(lines[1])
    second.pop("prev"), second.pop("hash")
    lines[0] = lines[0][:-1]                                        # cut: not JSON any more
    lines[1] = json.dumps(second, sort_keys=True, separators=(",", ":")).encode()
    write_lines(store, lines)
    doc = report(store)
    assert [p["seq"] for p in doc["problems"]][:2] == [1, 2]
    assert doc["problems"][1]["problem"] == "seq 2: unchained line after a chained one"
    assert doc["unchained"] == 0


def test_the_head_of_a_log_whose_last_line_is_unreadable(store):
    lines = read_lines(store)
    lines[-1] = b"{not json}"
    write_lines(store, lines)
    assert report(store)["head"] == "7:"


def test_a_certificate_is_read_once_however_many_lines_it_redacted(tmp_path, monkeypatch):
    """An erasure's certificate lists every seq it redacted: read once a redacted line, a big
    erasure cost its lines times its certificate (1.9 GB read for 112k redacted lines)."""
    from inspector.store import audit, registry
    from inspector.store.actions import Request
    from inspector.store.load import Store

    events = [(f"2025-01-01T00:00:{i % 60:02d}Z", "write",
               entry(f"M{i}", entity="user:5", attribute=f"a{i}", value=f"v{i}", subject="user:5"))
              for i in range(40)]
    root = write_store(tmp_path / "s", events)
    store = Store(root, warn=False)
    try:
        registry.apply(store, registry.plan(store, Request("erase", "DSR-5", "dana", subject="user:5")))
    finally:
        store.con.close()
    reads = []
    real = audit.read_regular
    monkeypatch.setattr(audit, "read_regular", lambda path: reads.append(path) or real(path))
    doc = report(root)
    assert (doc["ok"], doc["redacted"], len(reads)) == (True, 40, 1)
    certificate = reads[0]
    certificate.write_bytes(certificate.read_bytes().replace(b'"DSR-5"', b'"DSR-6"'))
    doc = verify(store_paths(root)).as_json()
    assert doc["ok"] is False and len(doc["problems"]) == 20
    assert all("does not match the digest" in p["problem"] for p in doc["problems"])
