"""The one validation of an entry state: what every writer of the project checks before it
writes (ingest, the importers, the append API) and what the loader calls malformed.

Beyond the field types: times are real calendar times whose offset lies within ±23:59 and
that convert to UTC without overflow; integers lie within ±2^31; numbers are finite; no
value is nested deeper than 64 levels; every string is valid Unicode (no lone surrogate).
The walk over a value is iterative: a hostile value cannot exhaust the Python stack.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

from .model import ENTRY_REQUIRED, KINDS, LAYERS, STATUSES, TIME_FIELDS, is_rfc3339, is_source

MAX_DEPTH = 64
# A scope is a path of at most this many segments ("tenant:acme/user:alice": 2). Judging an
# entry reads its scope's every ancestor, so a deeper one cost the square of its depth (one
# line of 6,000 segments took `beliefs` to 2.1 GB; 20,000 ran out of memory: helper-58).
MAX_SCOPE_SEGMENTS = 32
INT_MIN, INT_MAX = -(2 ** 31), 2 ** 31 - 1
STRING_FIELDS = ("id", "entity", "attribute", "kind", "source", "layer", "scope")
OPTIONAL_STRINGS = ("subject", "context", "retention", "sensitivity", "held_reason")
# Missing or null, these take their defaults when read (layer semantic, scope "" global,
# authority 0, no justification, no tags): a foreign writer may leave them out.
DEFAULTED = ("layer", "scope")


def entry_problem(entry: dict) -> str | None:
    """What is wrong with a complete entry state, naming the field; None when it is sound."""
    if not isinstance(entry, dict):
        return "the entry must be a JSON object"
    for name in ENTRY_REQUIRED:
        if name not in entry:
            return f'field "{name}" is missing'
    return (_strings(entry) or _enums(entry) or _numbers(entry) or _lists(entry)
            or _times(entry) or _optional(entry) or _whole(entry))


def _strings(entry: dict) -> str | None:
    for name in STRING_FIELDS:
        value = entry.get(name)
        if name in DEFAULTED and value is None:
            continue
        if name == "scope":
            if not isinstance(value, str):
                return 'field "scope" must be a string'
            if value.count("/") >= MAX_SCOPE_SEGMENTS:
                return f'field "scope" must have at most {MAX_SCOPE_SEGMENTS} segments'
            if value and "" in value.split("/"):      # "a//b", "/a", "a/": no --scope names it
                return 'field "scope" must not have an empty segment ("a//b", "/a", "a/")'
        elif not isinstance(value, str) or not value:
            return f'field "{name}" must be a non-empty string'
    return None


def _enums(entry: dict) -> str | None:
    if entry["kind"] not in KINDS:
        return 'field "kind" must be observation, claim, inference or summary'
    if entry.get("layer") is not None and entry["layer"] not in LAYERS:
        return 'field "layer" must be episodic, semantic or procedural'
    if "status" in entry and entry["status"] not in STATUSES:
        return f'field "status" must be one of {", ".join(STATUSES)}'
    if not is_source(entry["source"]):
        return ('field "source" must be class:id[/detail] with class user, operator, system, '
                'agent, tool, document or web')
    return None


def _numbers(entry: dict) -> str | None:
    authority = entry.get("authority")
    if authority is None:
        authority = 0
    if not is_int(authority):
        return 'field "authority" must be an integer'
    if not INT_MIN <= authority <= INT_MAX:
        return 'field "authority" must lie within ±2^31'
    confidence = entry.get("confidence")
    if confidence is not None and not (is_number(confidence) and 0 <= confidence <= 1):
        return 'field "confidence" must be a number from 0 to 1 or null'
    return None


def _lists(entry: dict) -> str | None:
    if entry.get("justification") is not None and not _id_list(entry["justification"]):
        return 'field "justification" must be a list of ids'
    if entry.get("tags") is not None and not _id_list(entry["tags"]):
        return 'field "tags" must be a list of strings'
    return None


def _times(entry: dict) -> str | None:
    for name in TIME_FIELDS:
        value = entry.get(name)
        if (value is not None or name == "observed_at") and not is_real_time(value):
            return (f'field "{name}" must be an RFC 3339 time: a real calendar date, an offset '
                    'within ±23:59, in the years 1 to 9999 once in UTC (e.g. 2025-03-01T04:06:55Z)')
    return None


def _optional(entry: dict) -> str | None:
    for name in OPTIONAL_STRINGS:
        if entry.get(name) is not None and not isinstance(entry[name], str):
            return f'field "{name}" must be a string or null'
    return None


def _whole(entry: dict) -> str | None:
    """Every field, the value and unknown extras included: depth, finite numbers, integers
    in range, valid Unicode."""
    for name, value in entry.items():
        kind = type(value)      # most fields are plain scalars: judged here, as value_problem would
        if (value is None or kind is bool or (kind is str and (value.isascii() or is_unicode(value)))
                or (kind is int and -(2 ** 63) <= value < 2 ** 63)):
            continue
        problem = value_problem(value, depth=1)
        if problem:
            return f'field "{name}" {problem}'
    return None


# The state fields the loader's SQL judges itself (queries/load.sql: staged_malformed and
# staged_value_suspects). The others, unknown extras and the certificate fields included, are
# judged by `extras_problem` on the parsed line: by the strict scan beside a fast read (which
# sends such a line to the exact read) and by the exact read of numbered lines.
SQL_JUDGED = frozenset({
    "id", "entity", "attribute", "kind", "layer", "source", "scope", "subject", "context",
    "status", "held_reason", "retention", "sensitivity", "observed_at", "valid_from", "valid_to",
    "expires_at", "value", "authority", "confidence", "justification", "tags"})


def extras_problem(event) -> str | None:
    """None when the state of an event (a parsed log line) has no field the loader's SQL does
    not judge, or none of them breaks the contract. Else what entry_problem's last step names:
    the first field, in the state's own order, that `_whole` finds wrong (perhaps the value)."""
    body = event.get("body") if isinstance(event, dict) else None
    state = body.get("after") if isinstance(body, dict) else None
    if not isinstance(state, dict) or state.keys() <= SQL_JUDGED:
        return None
    if any(value_problem(value, depth=1) for name, value in state.items() if name not in SQL_JUDGED):
        return _whole(state)
    return None


def value_problem(value, depth: int = 0) -> str | None:
    """Why a JSON value cannot be stored and read back by every command; None when it can."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            if level > MAX_DEPTH:
                return f"is nested deeper than {MAX_DEPTH} levels"
            children = item.values() if isinstance(item, dict) else item
            if isinstance(item, dict):
                bad = next((k for k in item if not isinstance(k, str) or not is_unicode(k)), None)
                if bad is not None:
                    return "holds a key that is not valid Unicode text"
            stack.extend((child, level + 1) for child in children)
        elif isinstance(item, str):
            if not is_unicode(item):
                return "holds a string that is not valid Unicode (a lone surrogate)"
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if not -(2 ** 63) <= item < 2 ** 63:
                return "holds an integer beyond 64 bits"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return "holds a number that is not finite (Infinity or NaN)"
        else:
            return f"holds a {type(item).__name__}, which is not JSON"
    return None


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _id_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


def is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_real_time(text) -> bool:
    """RFC 3339 syntax, a real calendar date and clock, an offset within ±23:59, and a UTC
    conversion that does not overflow (year 1 with +23:59, year 9999 with -23:59)."""
    if not is_rfc3339(text):
        return False
    try:
        datetime.fromisoformat(text.upper().replace("Z", "+00:00")).astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return False
    return True
