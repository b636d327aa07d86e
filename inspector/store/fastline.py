"""The grammar of a log line `audit --verify` may check without parsing it (the fast line of
verify_parallel.walk_chunk), and why that check is exact.

Why a line that the fast path takes needs no `jsonsafe.loads` (the skipped parse could have
found nothing), and why hashing slices of it is exact:

* *Strict JSON.* `FAST` is a grammar for a subset of JSON: objects whose members are a fixed,
  strictly increasing list of distinct keys (the envelope, the body, the entry state) — so no
  object has a duplicated key (`FAST_SOME` is the same grammar, but an entry state may
  leave out any of its keys but the `after` state's `id`, still in strictly increasing
  order: see `_state`); arrays of scalars only; strings of any byte but `"`, `\\` and
  control bytes, with (in the body only) the escapes `\\" \\\\ \\/ \\b \\f \\n \\r \\t` and
  `\\u0000`-`\\u001f` — never a `\\u` escape of a surrogate, so no string can hold a lone
  surrogate; numbers in JSON syntax whose integers have at most 300 digits (below Python's
  4300-digit limit for `int`); `true`, `false`, `null`; no whitespace; and it starts with
  `{`, so no byte-order mark. `fast_objects()` is the same grammar but for the entries'
  `value`, which may also be an object or array up to two levels deep, with any keys (the
  same strings): the only thing such a value could hide is a duplicated key, so each such
  value that holds a `{` is read by `jsonsafe.loads` on its own (`objects_strict`) — every
  object of the value lies inside that text — and a failure sends the line to the
  reference path. The line must also be valid UTF-8 (checked: `isascii` of the block, else
  a strict decode of the line), as `jsonsafe.loads` decodes it first. `jsonsafe.loads` then
  reads the text with `json.loads`, or with its iterative parser when `json.loads` finds
  it too deep (RecursionError). `json.loads` accepts every text of the grammar. So does
  the iterative parser: its token pattern takes each of the grammar's
  tokens whole (strings end at the first unescaped `"`, there is no whitespace), its
  strings are decoded by `json.loads`, its numbers by `int`/`float` as `json.loads` does,
  and the grammar's nesting is that of JSON. Neither finds a duplicated key (there is none)
  and the surrogate check finds nothing: `jsonsafe.loads` returns a dict — the one the
  grammar describes, with the envelope and body keys below — and raises nothing.
* *Envelope and state.* `envelope.line_problem` (the loaders' rules) is None: the grammar
  fixes `seq` as a non-negative integer of at most 18 digits (below 2^63), `at` as a real
  time whose UTC lies in years 1-9999 (`_AT`: no year 0000, no day a month lacks, no
  February 29th, an offset only in years 0002-9998), `actor` as `class:id` (`_ACTOR`: a
  lower-case letter, then letters, digits, `_` or `-`, a `:`, then one or more bytes none of
  which is a control byte, a space, `"` or `\\`, so no character the loader's ASCII `\\S`
  refuses), `op` as one of `model.OPS` other than `erase`, `memory_id` as a non-empty
  string, `batch` as a string or null, `batch_size` (when present) as a positive integer,
  `body` as an object, `body_digest`, `prev` and `hash` as 64 lower-case hex digits (both
  present). The body has no `erased` key, its `after` is an object (never null) whose `id`
  is a string written verbatim that `memory_id` repeats byte for byte (a backreference; equal
  bytes without escapes are equal strings), and whose `status` is not the string `erased`
  (the grammar admits no escape that spells it otherwise); `op` is not `erase`.
* *Body.* The body's keys are `after`, `before`, `reason`, `salt`: `is_redacted` is false.
  `_digest_of_body` takes the bytes between the first `,"body":` and the last
  `,"body_digest":"` of the line. Before the body member the line holds only the members
  `actor`, `at`, `batch` and perhaps `batch_size`, whose strings hold no `"` or `\\`: every
  `"` there is a delimiter, a comma followed by `"` starts a member, and none is named
  `body`; after the body member only `body_digest`, `hash`, `memory_id`, `op`, `prev`, `seq`
  follow, with no `"` inside their values, and none of them is named `body_digest` again. So
  the slice is exactly the body group of the match, and the fast path hashes that same slice
  and compares it with the same `body_digest`; when they differ the line goes to the
  reference path (which may then canonicalize the parsed body). Since `op` is not `erase`,
  `_body` records no erase event.
* *Hash.* `line_hash` hashes `prev + "\\n" + canonical(header)`, header = the line without
  `body` and `hash`. The header's keys, `actor < at < batch < batch_size < body_digest <
  memory_id < op < prev < seq`, stand in that sorted order in the line; its values are strings
  without `"`, `\\` or control characters (which `json.dumps(..., ensure_ascii=False)` writes
  verbatim between quotes, and whose UTF-8 bytes are the line's bytes), `null`, and integers
  in canonical form (no sign on zero, no leading zero: `repr` gives the same digits). So
  canonical(header) is exactly the line with the `,"body":…` and `,"hash":"…"` members cut
  out, which is what the fast path hashes: the same bytes, so the same verdict, with no
  appeal to collision resistance.
* *Link.* The fast path then runs `_Walk.line`'s and `_Walk._link`'s comparisons on the same
  values, in the same order, with the same problem texts (it keeps `prev_hash` as UTF-8
  bytes: equal bytes exactly when equal strings).
"""

from __future__ import annotations

import re

from . import jsonsafe
from .model import ENTRY_DEFAULTS, ENTRY_REQUIRED, OPS


# -- the grammar of a line our writer produces (see the module docstring) ---------------------

_STATE_KEYS = tuple(sorted({*ENTRY_REQUIRED, *ENTRY_DEFAULTS, "status"}))
_ENVELOPE_BEFORE_BODY = ("actor", "at", "batch", "batch_size")
_HEADER_KEYS = _ENVELOPE_BEFORE_BODY + ("body_digest", "memory_id", "op", "prev", "seq")
assert list(_STATE_KEYS) == sorted(set(_STATE_KEYS))
assert all(re.fullmatch(r"[a-z_]+", k) for k in _STATE_KEYS)        # written verbatim
assert list(_HEADER_KEYS) == sorted(_HEADER_KEYS)
assert sorted(_HEADER_KEYS + ("body", "hash")) == [
    "actor", "at", "batch", "batch_size", "body", "body_digest", "hash", "memory_id", "op", "prev", "seq"]

_S_ENV = rb'"[^"\\\x00-\x1f]*+"'                       # no escape: written verbatim
_S_ENV1 = rb'"[^"\\\x00-\x1f]++"'                      # the same, not empty
_S_BODY = (rb'"[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u00[01][0-9a-fA-F])[^"\\\x00-\x1f]*+)*+"')
# ^ escapes: the simple ones and \u0000-\u001f (control characters), never a surrogate
_NUM = rb'-?+(?:0|[1-9][0-9]{0,299}+)(?:\.[0-9]++)?+(?:[eE][+-]?+[0-9]++)?+'
_SCALAR = rb'(?>' + _S_BODY + rb'|null|' + _NUM + rb'|true|false)'
_VALUE = rb'(?>' + _SCALAR + rb'|\[(?:' + _SCALAR + rb'(?:,' + _SCALAR + rb')*+)?+\])'
# Each field of a state accepts exactly _VALUE; for speed the alternative its values usually
# take is tried first (a subset of _VALUE placed before it does not change the language).
# Every value is an atomic group, or a line that fails late would backtrack through 2^fields
# ways of matching the values before. An atomic group only removes ways to match, so what
# FAST accepts stays inside the grammar; a JSON value has one extent, so no line is lost.
_NULL_FIRST = rb'(?>null|' + _VALUE + rb')'
_NUM_FIRST = rb'(?>' + _NUM + rb'(?=[,}])|' + _VALUE + rb')'
_LIST_FIRST = rb'(?>\[(?:' + _S_BODY + rb'(?:,' + _S_BODY + rb')*+)?+\](?=[,}])|' + _VALUE + rb')'
_FIELD = {"context": _NULL_FIRST, "expires_at": _NULL_FIRST, "held_reason": _NULL_FIRST,
          "retention": _NULL_FIRST, "sensitivity": _NULL_FIRST, "subject": _NULL_FIRST,
          "valid_from": _NULL_FIRST, "valid_to": _NULL_FIRST, "authority": _NUM_FIRST,
          "confidence": _NUM_FIRST, "justification": _LIST_FIRST, "tags": _LIST_FIRST}
_FAST_OPS = b"|".join(op.encode() for op in OPS if op != "erase")


def _state(value: bytes, after: bool = False, some: bool = False) -> bytes:
    """An entry state (or null): an object whose members are the schema's keys in sorted
    order, `value` matched by `value`; with `some`, any of them but the `after` state's `id`
    may be left out. The state `after` an event holds `id` (group after_id, a string written
    verbatim) that the envelope's `memory_id` repeats byte for byte, and its status, when
    present, is not "erased".

    With `some`, each member is optional and possessive; after its value comes `,` or `}`
    (lookahead), a `,` is taken, and the object cannot end on one: so members are
    comma-separated, and no key can come twice (each is tried once, in strictly increasing
    order). A writer that leaves out the keys it has no value for (another tool's) then still
    takes the fast path; our writer's lines are tried against the full schema first, which is
    12% faster to match."""
    fields = {**_FIELD, "value": value}
    if after:
        fields.update(id=rb'(?P<after_id>' + _S_ENV1 + rb')', status=rb'(?!"erased")' + _VALUE)
    opening = rb'(?>' + (b'' if after else rb'null|') + rb'\{'
    if not some:
        members = (b'"%s":' % k.encode() + fields.get(k, _VALUE) for k in _STATE_KEYS)
        return opening + b",".join(members) + rb'\})'
    members = []
    for k in _STATE_KEYS:
        member = b'"%s":' % k.encode() + fields.get(k, _VALUE) + rb'(?=[,}]),?+'
        members.append(member if (after and k == "id") else rb'(?:' + member + rb')?+')
    return opening + b"".join(members) + rb'(?<!,)\})'


# `at`: a real calendar date in years 0001-9999 (February up to the 28th: a 29th goes to the
# reference path, which knows leap years), UTC (Z) or an offset within ±23:59 in years
# 0002-9998 (so that UTC does not leave 1..9999): is_real_time holds for every match.
_DATE_TIME = (rb'-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])'
              rb'|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))'
              rb'[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?')
_AT = (rb'"(?:(?!0000)[0-9]{4}' + _DATE_TIME + rb'[Zz]'
       rb'|(?!0000|0001|9999)[0-9]{4}' + _DATE_TIME + rb'[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"')


# `actor`: class:id as envelope.line_problem wants it, written verbatim (no escape, no space,
# no control character: none of the whitespace the loader's RE2 \S excludes).
_ACTOR = rb'"[a-z][a-z0-9_-]*+:[^"\\\x00-\x20]++"'


def _line(after_value: bytes, before_value: bytes, some: bool = False) -> bytes:
    """A whole line, newline included; groups: body, after_id, digest, hash, prev, seq. With
    `some`, its states may leave out keys (`_state`)."""
    body = (rb'\{"after":' + _state(after_value, True, some) + rb',"before":'
            + _state(before_value, some=some)
            + rb',"reason":' + _VALUE + rb',"salt":' + _VALUE + rb'\}')
    return (rb'\{"actor":' + _ACTOR + rb',"at":' + _AT + rb',"batch":(?:null|' + _S_ENV + rb')'
            rb'(?:,"batch_size":[1-9][0-9]{0,17}+)?+'
            rb',"body":(?P<body>' + body + rb'),"body_digest":"(?P<digest>[0-9a-f]{64})"'
            rb',"hash":"(?P<hash>[0-9a-f]{64})","memory_id":(?P=after_id),"op":"(?:' + _FAST_OPS
            + rb')","prev":"(?P<prev>[0-9a-f]{64})","seq":(?P<seq>0|[1-9][0-9]{0,17}+)\}\n')


def _nested(depth: int) -> bytes:
    """Any JSON value whose objects and arrays nest at most `depth` deep (keys: _S_BODY)."""
    if depth == 0:
        return _SCALAR
    inner = _nested(depth - 1)
    return (rb'(?>' + _SCALAR + rb'|\[(?:' + inner + rb'(?:,' + inner + rb')*+)?+\]|\{(?:' + _S_BODY
            + rb':' + inner + rb'(?:,' + _S_BODY + rb':' + inner + rb')*+)?+\})')


FAST = re.compile(_line(_VALUE, _VALUE))
FAST_SOME = re.compile(_line(_VALUE, _VALUE, some=True))     # states that leave keys out
assert list(FAST.groupindex) == list(FAST_SOME.groupindex) == [
    "body", "after_id", "digest", "hash", "prev", "seq"]
_FAST_OBJECTS: re.Pattern | None = None     # the same with objects in `value`: compiled when needed


def fast_objects() -> re.Pattern:
    """FAST, but an entry's `value` may hold objects (two levels deep), which may have
    duplicated keys: each such value is read by jsonsafe.loads (strict) before the line is
    taken as fast (`objects_strict`)."""
    global _FAST_OBJECTS
    if _FAST_OBJECTS is None:
        _FAST_OBJECTS = re.compile(_line(b"(?P<after_value>" + _nested(2) + b")",
                                         b"(?P<before_value>" + _nested(2) + b")", some=True))
    return _FAST_OBJECTS


def objects_strict(data: bytes, m: re.Match) -> bool:
    for name in ("after_value", "before_value"):
        start, end = m.span(name)
        if start >= 0 and data.find(b"{", start, end) >= 0:
            try:
                jsonsafe.loads(data[start:end])
            except ValueError:
                return False
    return True


DIGEST_MEMBER = len(b',"body_digest":"') + 64 + 1             # kept in the header
HEADER_SKIP = DIGEST_MEMBER + len(b',"hash":"') + 64 + 1      # the hash member: cut out
BODY_KEY = len(b',"body":')
