"""What makes a parsed line an event at all: the rules of the loader's `log_problems` and
`state_problems` (queries/load.sql), in their order and their words, for `audit --verify`.

DESIGN §7: loaders and `audit --verify` never disagree about what a valid line is. The rules
about the line's place (seq order, an unchained line after a chained one) belong to the walk
(audit._Walk) and to the loader's own order checks; everything else is here. The loader reads
the envelope's text fields as VARCHAR, which turns a number into its digits, so it cannot see
a field of the wrong JSON type: `mistyped` names those fields for it (strictscan.judge_line
hands them to the SQL, and a cold load's strict scan sends such a line to the exact read).
"""

from __future__ import annotations

import re

from .contract import is_real_time
from .model import OPS

# The loader's regexp_full_match(actor, '[a-z][a-z0-9_-]*:\S+'): RE2's \S is ASCII, so only
# tab, newline, form feed, carriage return and space are whitespace there (not Python's \s).
_ACTOR = re.compile(r"[a-z][a-z0-9_-]*:[^\t\n\f\r ]+")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SEQ_MIN, _SEQ_END = -(2 ** 63), 2 ** 64       # what DuckDB's JSON reader types as an integer

SEQ = 'field "seq" is missing or not an integer'
AT = 'field "at" is missing or not an RFC 3339 time'
ACTOR = 'field "actor" is missing or not of the form class:id'
OP = 'field "op" is missing or unknown'
MEMORY_ID = 'field "memory_id" is missing or empty'
MEMORY_ID_TYPE = 'field "memory_id" must be a string'
BATCH = 'field "batch" must be a string or null'
BATCH_SIZE = 'field "batch_size" must be a positive integer'
BODY = 'field "body" is missing or not an object'
BODY_DIGEST = 'field "body_digest" is missing or not a SHA-256 (64 lower-case hex digits)'
CHAIN_PAIR = 'fields "prev" and "hash" must come together'
CHAIN_HEX = 'fields "prev" and "hash" must be SHA-256 digests (64 lower-case hex digits)'
AFTER = 'field "body.after" is missing or not an object'
AFTER_ID = "body.after.id does not match memory_id"
ERASE_SHAPE = 'an erase event needs body.after.status "erased" and a certificate'
ERASED_STATUS = 'status "erased" is only written by an erase event'
REDACTED_SHAPE = 'a redacted body is {"erased": "<certificate-id>"} alone'


def is_hex64(value) -> bool:
    return isinstance(value, str) and _HEX64.fullmatch(value) is not None


def is_seq(value) -> bool:
    return type(value) is int and _SEQ_MIN <= value < _SEQ_END


def _batch_ok(event: dict) -> bool:
    return event.get("batch") is None or isinstance(event["batch"], str)


def _batch_size_ok(event: dict) -> bool:
    """Absent, or how many events the batch has (the writer sets it on batches of two or more)."""
    return "batch_size" not in event or (type(event["batch_size"]) is int and event["batch_size"] >= 1)


def mistyped(event: dict) -> list[str]:
    """The envelope fields present with a JSON type the loader's text columns would hide
    (`"batch": 5` reads as '5'): memory_id, batch, batch_size, body, body_digest, prev, hash;
    and body.erased, a redacted body that is more than {"erased": "<certificate-id>"}."""
    bad = [name for name in ("memory_id", "body_digest", "prev", "hash")
           if name in event and not isinstance(event[name], str)
           and (event[name] is not None or name in ("prev", "hash"))]
    if not _batch_ok(event):
        bad.append("batch")
    if not _batch_size_ok(event):
        bad.append("batch_size")
    if "body" in event and not isinstance(event["body"], dict):
        bad.append("body")
    elif isinstance(event.get("body"), dict) and not _redaction_ok(event["body"]):
        bad.append("body.erased")
    return bad


def _redaction_ok(body: dict) -> bool:
    """No `erased` (or null: an ordinary body), or exactly {"erased": "<certificate-id>"}. The
    loader reads `erased` as text and drops the other keys, so it cannot tell on its own."""
    return body.get("erased") is None or (len(body) == 1 and isinstance(body["erased"], str))


def line_problem(event: dict) -> str | None:
    """The first rule of log_problems, then of state_problems, that the line breaks."""
    return _envelope(event) or _chain_fields(event) or _state(event)


def _envelope(event: dict) -> str | None:
    if not is_seq(event.get("seq")):
        return SEQ
    at = event.get("at")
    if not isinstance(at, str) or not is_real_time(at):
        return AT
    actor = event.get("actor")
    if not isinstance(actor, str) or not _ACTOR.fullmatch(actor):
        return ACTOR
    if not isinstance(event.get("op"), str) or event["op"] not in OPS:
        return OP
    memory_id = event.get("memory_id")
    if memory_id is None or memory_id == "":
        return MEMORY_ID
    if not isinstance(memory_id, str):
        return MEMORY_ID_TYPE
    if not _batch_ok(event):
        return BATCH
    if not _batch_size_ok(event):
        return BATCH_SIZE
    if not isinstance(event.get("body"), dict):
        return BODY
    return None


def _chain_fields(event: dict) -> str | None:
    if not is_hex64(event.get("body_digest")):
        return BODY_DIGEST
    # null counts as absent for the pair, as in the loader's columns; a null present is no digest
    if (event.get("prev") is None) != (event.get("hash") is None):
        return CHAIN_PAIR
    if ("prev" in event or "hash" in event) and not (is_hex64(event.get("prev"))
                                                     and is_hex64(event.get("hash"))):
        return CHAIN_HEX
    return None


def _state(event: dict) -> str | None:
    """The entry state after the event. A redacted body ({"erased": "<certificate-id>"} alone)
    has none: audit checks it against its certificate."""
    body = event["body"]
    if body.get("erased") is not None:
        return None if _redaction_ok(body) else REDACTED_SHAPE
    after = body.get("after")
    if not isinstance(after, dict):
        return AFTER
    if after.get("id") != event["memory_id"]:
        return AFTER_ID
    if event["op"] == "erase":
        if after.get("status") != "erased" or after.get("certificate") is None:
            return ERASE_SHAPE
    elif after.get("status") == "erased":
        return ERASED_STATUS
    return None
