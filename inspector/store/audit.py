"""`audit --verify`: walk the log in file order and check the hash chain (DESIGN §7).

It never sorts and never trusts DuckDB: every line is parsed here, its body digest, `prev`
link, `seq` and hash are checked, and bodies replaced by erasure are accepted only where a
later intact erase event of the same entry names that certificate and the certificate file
matches the digest that event recorded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from . import jsonsafe
from .chain import GENESIS, body_digest, canonical, line_hash, sha256_hex
from .batches import cut_short, whole_tail
from .logfile import StorePaths
from .envelope import is_hex64, line_problem
from .files import read_regular

_BODY_KEY = b',"body":'
_DIGEST_KEY = b',"body_digest":"'


@dataclass
class Problem:
    seq: int
    text: str


@dataclass
class Report:
    events: int = 0
    head: str | None = None
    redacted: int = 0
    unchained: int = 0
    torn_bytes: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def first(self) -> Problem | None:
        return min(self.problems, key=lambda p: p.seq) if self.problems else None

    def as_json(self) -> dict:
        first = self.first()
        return {"ok": self.ok, "events": self.events, "head": self.head,
                "redacted": self.redacted, "unchained": self.unchained,
                "first_bad_seq": first.seq if first else None,
                "problem": first.text if first else None,
                "problems": [{"seq": p.seq, "problem": p.text}
                             for p in sorted(self.problems, key=lambda p: p.seq)[:20]],
                "torn_bytes": self.torn_bytes}


def parse_line(raw: bytes) -> dict:
    """One log line as a dict; ValueError for anything but one strict JSON object (the same
    reading the loader applies: no byte-order mark, no duplicated key, finite numbers)."""
    event = jsonsafe.loads(raw)
    if not isinstance(event, dict):
        raise ValueError("not a JSON object")
    return event


def _digest_of_body(raw: bytes, event: dict) -> str:
    """SHA-256 of canonical(body); a canonical line holds it verbatim, so try that first."""
    start, end = raw.find(_BODY_KEY), raw.rfind(_DIGEST_KEY)
    if 0 < start < end:
        quick = sha256_hex(raw[start + len(_BODY_KEY):end])
        if quick == event.get("body_digest"):
            return quick
    return body_digest(event["body"])


def is_redacted(body: dict) -> bool:
    return set(body) == {"erased"} and isinstance(body["erased"], str)


class _Empty(Exception):
    """A blank line (format.md: the log has none)."""


class _Walk:
    """State of one pass over the log."""

    def __init__(self, paths: StorePaths, report: Report):
        self.paths, self.report = paths, report
        self.expected, self.prev_hash, self.chained = 1, GENESIS, False
        self.prev_consistent = False     # the line before is in its place and matches its hash
        self.hashes: dict[int, str] = {}
        self.redactions: list[tuple[int, str, str]] = []        # seq, memory_id, certificate
        # (memory_id, cert) -> the erase event's seq, certificate_digest and hash
        self.erasures: dict[tuple[str, str], tuple[int, str, str]] = {}
        # Runs of consecutive lines of one batch that gives a batch_size of 2 or more:
        # [first line, last line, batch, batch_size] (check_batches)
        self.runs: list[list] = []

    def problem(self, seq: int, text: str) -> None:
        self.report.problems.append(Problem(seq, text))

    def line(self, raw: bytes) -> None:
        seq = self.expected
        self.expected += 1
        try:
            if not raw.strip(b" \t\r"):
                raise _Empty
            event = parse_line(raw)
        except _Empty:      # in the loaders' words (queries/load.sql raw_parse_lines)
            self.problem(seq, f"line {seq}: empty line")
            self.prev_hash, self.prev_consistent = None, False
            return
        except ValueError as exc:
            self.problem(seq, f"line {seq} is not a valid JSON object ({exc})")
            self.chained = self.chained or b'"hash"' in raw
            self.prev_hash, self.prev_consistent = None, False
            return
        bad = line_problem(event)        # what the loaders refuse, in their words
        if bad:
            self.problem(seq, f"line {seq}: {bad}")
            self.prev_hash = event.get("hash") if isinstance(event.get("hash"), str) else None
            self.prev_consistent = False
            return
        in_place = event["seq"] == seq
        if not in_place:
            self.problem(seq, f"line {seq} holds seq {event['seq']} (expected {seq}): "
                              "a line was deleted, swapped, duplicated or inserted")
        self.report.events += 1
        size = event.get("batch_size")
        if size is not None and size >= 2:
            self.batched(seq, event.get("batch"), size)
        self._body(seq, raw, event)
        self._link(seq, event, in_place)

    def batched(self, seq: int, batch: str | None, size: int) -> None:
        """Line `seq` is of `batch`, which gives `size` events, 2 or more (check_batches):
        what each line adds depends on that line alone, so chunks of the log walked apart and
        joined (verify_parallel) give the same runs."""
        if batch is not None:
            self.add_run(seq, seq, batch, size)

    def add_run(self, first: int, last: int, batch: str, size: int) -> None:
        """Lines `first` to `last` of `batch`: the run before goes on if they follow it."""
        runs = self.runs
        if runs and runs[-1][2] == batch and runs[-1][1] == first - 1:
            runs[-1][1] = last
        else:
            runs.append([first, last, batch, size])

    def check_batches(self) -> None:
        """A batch with fewer events than its batch_size and lines after it: cut short by a
        crash, then written after by another tool (the inspector's own writer sets an
        unfinished trailing batch aside first). All or nothing: every loader refuses it, in
        the same words (Store.take_staged; helper-63: it passed the audit)."""
        # A run that a bad line ends (one the loaders refuse before any batch: a blank line,
        # one that is not JSON, a seq out of place; its problem reads "line N…") is that
        # line's problem, named at that line as the loaders name it, not a batch cut short.
        bad_lines = {p.seq for p in self.report.problems if p.text.startswith("line ")}
        for first, last, batch, size in self.runs:
            if last - first + 1 < size and last + 1 not in bad_lines:
                self.problem(first, f"seq {first}: {cut_short(batch, last - first + 1, size)}")

    def _body(self, seq: int, raw: bytes, event: dict) -> None:
        body = event["body"]
        if is_redacted(body):
            self.report.redacted += 1
            self.redactions.append((seq, event["memory_id"], body["erased"]))
            return
        if _digest_of_body(raw, event) != event["body_digest"]:
            self.problem(seq, f"seq {seq}: body does not match body_digest (the body was changed)")
            return
        after = body.get("after")
        if event["op"] == "erase" and isinstance(after, dict) and isinstance(after.get("certificate"), str):
            self.erasures[(event["memory_id"], after["certificate"])] = (
                seq, after.get("certificate_digest"), event.get("hash"))

    def _link(self, seq: int, event: dict, in_place: bool = True) -> None:
        if "hash" not in event:
            if self.chained:
                self.problem(seq, f"seq {seq}: unchained line after a chained one")
            else:
                self.report.unchained += 1
            self.prev_hash, self.prev_consistent = None, False
            return
        expected_prev = self.prev_hash if self.chained else GENESIS
        if self.chained and expected_prev is not None and event["prev"] != expected_prev:
            self._broken_link(seq, in_place)
        elif not self.chained and event["prev"] != GENESIS:
            self.problem(seq, f"seq {seq}: the first chained line must have prev of 64 zeros")
        consistent = line_hash(event) == event["hash"]
        if not consistent:
            self.problem(seq, f"seq {seq}: hash does not match the line (a header was changed)")
        self.chained = True
        self.prev_hash, self.prev_consistent = event["hash"], consistent and in_place
        self.hashes[seq] = event["hash"]

    def _broken_link(self, seq: int, in_place: bool) -> None:
        """seq's prev is not the hash of seq - 1. When both lines stand in their places and
        seq - 1 is consistent with its own hash, one of them was rewritten and re-hashed:
        report at the earlier line."""
        if self.prev_consistent and in_place:
            self.problem(seq - 1, f"seq {seq - 1} or seq {seq} was rewritten: seq {seq}'s prev "
                                  f"does not match the hash of seq {seq - 1}, whose own digests "
                                  "are consistent (a line edited and re-hashed)")
        else:
            self.problem(seq, f"seq {seq}: prev does not match the hash of seq {seq - 1}")

    def check_redactions(self) -> None:
        replaced = set()
        # Each certificate is read and digested once, not once a redacted line: an erasure's
        # certificate lists every seq it redacted, so that was the lines times the list (1.9 GB
        # of certificates read for 112k redacted lines of a million-event log).
        matches: dict[tuple[str, str], bool] = {}
        documents: dict[str, dict | None] = {}
        for seq, memory_id, certificate in self.redactions:
            replaced.add((memory_id, certificate))
            vouch = self.erasures.get((memory_id, certificate))
            if vouch is None or vouch[0] < seq:
                self.problem(seq, f"seq {seq}: body replaced by erasure, but no later erase event "
                                  f"of {memory_id} names certificate {certificate}")
                continue
            digest = vouch[1]
            if certificate not in documents:
                documents[certificate] = self._certificate(certificate)
            if not isinstance(digest, str):           # no digest (or not text): matches nothing
                ok = False
            elif (certificate, digest) not in matches:
                ok = matches[certificate, digest] = _matches(documents[certificate], digest)
            else:
                ok = matches[certificate, digest]
            if not ok:
                self.problem(seq, f"seq {seq}: certificate {certificate} is missing or does not "
                                  "match the digest its erase event recorded")
        # An erasure replaces every earlier body of the entry: an erase event that vouches for
        # none left the entry's state in the log (another writer appended it and rewrote
        # nothing), while every command shows the entry as erased.
        for (memory_id, certificate), (seq, *_vouch) in self.erasures.items():
            if (memory_id, certificate) not in replaced:
                self.problem(seq, f"seq {seq}: erase event of {memory_id} (certificate "
                                  f"{certificate}), but no earlier body of {memory_id} was replaced "
                                  "by it: the erased state is still in the log")
        self._check_heads(documents)

    def _check_heads(self, documents: dict[str, dict | None]) -> None:
        """A certificate's head_after is the seq and hash of its last erase event. The digest
        an erase event records cannot cover it (the events' hashes are made from that digest),
        so it is checked against the log: an edited head_after vouched for another log."""
        last: dict[str, tuple[int, str]] = {}
        for (_memory_id, certificate), (seq, _digest, hashed) in self.erasures.items():
            if seq > last.get(certificate, (0, ""))[0]:
                last[certificate] = (seq, hashed)
        for certificate, document in documents.items():
            if document is None or certificate not in last:
                continue                              # missing: reported above
            seq, hashed = last[certificate]
            if document.get("head_after") != f"{seq}:{hashed}":
                self.problem(seq, f"seq {seq}: certificate {certificate} gives another "
                                  f"head_after than its last erase event, {seq}:{hashed} (the "
                                  "certificate was edited)")

    def check_certificates(self, after_last: int) -> None:
        """A certificate no erase event names vouches for an erasure the log does not hold:
        forged, or left by a restore of the log from before it (what it erased is back)."""
        named = {certificate for _memory_id, certificate in self.erasures}
        folder = self.paths.certificates
        if folder.is_symlink() or not folder.is_dir():
            return
        for name in sorted(p.name for p in folder.iterdir()):
            if name.endswith(".json") and name[:-len(".json")] not in named:
                self.problem(after_last, f"certificates/{name}: no erase event in the log names "
                                         "this certificate (forged, or the log was restored "
                                         "from before the erasure: what it erased may be back)")

    def _certificate(self, certificate: str) -> dict | None:
        path = self.paths.certificates / f"{Path(certificate).name}.json"
        try:
            document = jsonsafe.loads(read_regular(path))
        except (OSError, ValueError):
            return None
        return document if isinstance(document, dict) else None   # '[]', 'null': not one


def _matches(document: dict | None, digest: str) -> bool:
    if document is None:
        return False
    signed = {key: value for key, value in document.items() if key != "head_after"}
    return sha256_hex(canonical(signed)) == digest


def verify(paths: StorePaths, expect_head: str | None = None) -> Report:
    """Walk the whole log; the report's first problem is at the first affected seq. The work
    is split over the cores (verify_parallel), with exactly the report of
    `verify_sequential`."""
    from .verify_parallel import verify as verify_chunked
    return verify_chunked(paths, expect_head)


def verify_sequential(paths: StorePaths, expect_head: str | None = None) -> Report:
    """The reference: one pass over the log, line by line, in this process."""
    report = Report()
    tail = whole_tail(paths.log)
    report.torn_bytes = len(tail.torn)
    walk = _Walk(paths, report)
    with open(paths.log, "rb") as f:
        done = 0
        for raw in f:
            if done + len(raw) > tail.end:
                break
            done += len(raw)
            walk.line(raw[:-1])
    finish(walk, expect_head)
    return report


def finish(walk: _Walk, expect_head: str | None) -> None:
    """After the last line: redacted bodies, the unchained prefix, the head."""
    report = walk.report
    walk.check_batches()
    walk.check_redactions()
    walk.check_certificates(walk.expected)
    if report.unchained:
        walk.problem(1, f"seq 1 to {report.unchained} are unchained (written by another tool): "
                        "that prefix is not tamper-evident")
    last = walk.expected - 1
    if last:
        report.head = f"{last}:{walk.hashes.get(last, '')}"
    if expect_head is not None:       # '' is a head left unset: refused, never skipped
        _check_head(walk, expect_head, last)


# ASCII digits only: str.isdigit() and int() also take '٦' and '６' as 6.
_SEQ_TEXT = re.compile(r"[0-9]+")


def parse_head(text: str) -> tuple[int, str]:
    seq, _, digest = text.partition(":")
    if not _SEQ_TEXT.fullmatch(seq) or not is_hex64(digest):
        raise ValueError(f"{text!r} is not SEQ:HASH (e.g. 412:9f3c…, ASCII digits, 64 hex digits)")
    if int(seq) < 1:
        raise ValueError(f"{text!r} names seq {int(seq)}, but seqs start at 1: give the head "
                         "an earlier `inspector audit` printed")
    return int(seq), digest


def _check_head(walk: _Walk, expect_head: str, last: int) -> None:
    seq, digest = parse_head(expect_head)
    if seq > last:
        walk.problem(last + 1, f"the log ends at seq {last}, before the expected head {seq}: "
                               "lines were removed from the end")
    elif walk.hashes.get(seq) != digest:
        walk.problem(seq, f"seq {seq} does not have the expected head hash")
