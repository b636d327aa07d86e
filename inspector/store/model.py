"""The words of the store format (DESIGN §2): ops, kinds, statuses, scopes, sources, times."""

from __future__ import annotations

import re
from datetime import datetime, timezone

OPS = ("write", "update", "hold", "approve", "reject", "quarantine", "release", "retract",
       "expire", "revert", "erase")
KINDS = ("observation", "claim", "inference", "summary")
LAYERS = ("episodic", "semantic", "procedural")
STATUSES = ("held", "active", "rejected", "quarantined", "retracted", "expired", "erased")
SOURCE_CLASSES = ("user", "operator", "system", "agent", "tool", "document", "web")
SEVERITIES = ("low", "medium", "high")
SENSITIVITIES = ("pii", "secret")

# RFC 3339 date-time: the only time syntax the store and the command line accept.
# The loader's real_time (queries/load.sql), character for character: hours 00-23, minutes and
# seconds 00-59, in the clock and in the offset (Python's fromisoformat reads +05:99 as +06:39,
# which the loader refuses), ASCII digits only.
RFC3339 = (r"\d{4}-\d\d-\d\d[Tt]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?"
           r"([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)")
_RFC3339 = re.compile(RFC3339, re.ASCII)
_SOURCE = re.compile(r"(%s):[^/\s]+(/.*)?" % "|".join(SOURCE_CLASSES), re.S)
_ACTOR = re.compile(r"[a-z][a-z0-9_-]*:[^\s]+")

# An entry's fields with the default a feed may omit (DESIGN §2.2); None = required.
ENTRY_DEFAULTS: dict[str, object] = {
    "layer": "semantic", "authority": 0, "confidence": None, "valid_from": None, "valid_to": None,
    "scope": "", "subject": None, "justification": [], "context": None, "held_reason": None,
    "retention": None, "expires_at": None, "sensitivity": None, "tags": [],
}
ENTRY_REQUIRED = ("id", "entity", "attribute", "value", "kind", "source", "observed_at")
TIME_FIELDS = ("observed_at", "valid_from", "valid_to", "expires_at")


def is_rfc3339(text: object) -> bool:
    return isinstance(text, str) and _RFC3339.fullmatch(text) is not None


def leap_second_instead(text: str) -> str | None:
    """The same time a second earlier, when `text` is RFC 3339 but for a leap second (:60)."""
    if text[16:19] == ":60" and is_rfc3339(earlier := text[:17] + "59" + text[19:]):
        return earlier
    return None


def parse_time(text: str) -> datetime:
    """An RFC 3339 string as an aware UTC datetime; ValueError if it is not one, or names no
    real moment whose UTC lies in the years 0001-9999 (Feb 30th; 9999-12-31T23:59:59-01:00)."""
    if not is_rfc3339(text):
        if (instead := leap_second_instead(text)) is not None:
            raise ValueError(f"{text!r} is a leap second, which no time of the store can be "
                             f"(nor Python's or DuckDB's); give {instead!r}")
        raise ValueError(f"{text!r} is not an RFC 3339 time (e.g. 2025-03-01T04:06:55Z)")
    try:
        return datetime.fromisoformat(text.upper().replace("Z", "+00:00")).astimezone(timezone.utc)
    except (ValueError, OverflowError):
        raise ValueError(f"{text!r} is no real time whose UTC lies in the years 0001-9999 "
                         "(e.g. 2025-03-01T04:06:55Z)") from None


def format_time(moment: datetime | None) -> str | None:
    """UTC, `Z`, fractional seconds only when present: how the tool reports times."""
    if moment is None:
        return None
    text = moment.astimezone(timezone.utc).isoformat()
    return text.replace("+00:00", "Z")


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def now_text() -> str:
    """Now, to the millisecond, as the tool writes times into the log."""
    moment = now_utc()
    return format_time(moment.replace(microsecond=moment.microsecond // 1000 * 1000))


def is_source(text: object) -> bool:
    return isinstance(text, str) and _SOURCE.fullmatch(text) is not None


def is_actor(text: object) -> bool:
    return isinstance(text, str) and _ACTOR.fullmatch(text) is not None


def sensitivity_of(value: object) -> str | None:
    """The sensitivity a stored `sensitivity` means: `pii` or `secret` read by its ASCII letters
    alone, in any case ("Secret", " secret" + a zero-width space, "S-E-C-R-E-T"), else None.
    A writer refuses any spelling but the exact one (writes.sensitivity_problem); a log written
    before may hold another, and a "Secret" read as no sensitivity was neither held nor masked.
    queries/tui.sql (tui_frequencies_flagged) reads it the same way."""
    if not isinstance(value, str):
        return None
    letters = "".join(c for c in value if c.isascii() and c.isalpha()).lower()
    return letters if letters in SENSITIVITIES else None


def principal(source: str) -> str:
    """The part of a source before the first `/`: who stands behind it."""
    return source.split("/", 1)[0]


def scope_filter_error(scope: str | None, flag: str = "--scope") -> str | None:
    """Why a --scope filter (or a --context, `flag`) cannot match as meant, or None: an empty
    segment ("tenant:acme/", "/tenant:acme", "a//b") would match nothing (or another scope)
    without a word; no entry's scope has one (the entry contract)."""
    if not scope or "" not in scope.split("/"):
        return None
    meant = "/".join(s for s in scope.split("/") if s)
    return (f"{flag} {scope!r} has an empty segment, so nothing would match it; "
            f"give {meant!r}" if meant else f"{flag} {scope!r} names no scope; give a scope "
            "such as 'tenant:acme/user:42', or '' for the whole store")


def scope_blank_error(scope: str | None, flag: str = "--scope") -> str | None:
    """Why a --scope with a segment that begins or ends with a blank (`' tenant:acme'`, a
    quoting slip) cannot be meant, or None. Such a scope is an entry's only when another
    writer wrote it so: the caller refuses it when no entry lies inside it, where it would
    match nothing without a word."""
    if not scope or all(part == part.strip() for part in scope.split("/")):
        return None
    meant = "/".join(part.strip() for part in scope.split("/"))
    return (f"{flag} {scope!r} has a segment that begins or ends with a blank, and no entry's "
            f"scope is inside it, so nothing would match it; give {meant!r}")


def segments(scope: str) -> list[str]:
    return [s for s in scope.split("/") if s] if scope else []


def is_within(scope: str, outer: str) -> bool:
    """True when `scope` is `outer` or one of its sub-scopes (segment-wise)."""
    return outer == "" or scope == outer or scope.startswith(outer + "/")


def visible_from(scope: str, context: str) -> bool:
    """An entry in `scope` is visible from `context` when scope is context or an ancestor."""
    return is_within(context, scope)


def seq_span(seqs: list[int]) -> str:
    """`seq 37` for one event, `seq 13–19` for a batch of several (never `seq 37–37`)."""
    return f"seq {seqs[0]}" if seqs[0] == seqs[-1] else f"seq {seqs[0]}–{seqs[-1]}"


def id_named(memory_id: str) -> str:
    """An id as an error line names it: quoted when it is empty or begins or ends with a
    space, which the bare text would not show (`error: : not found`)."""
    return repr(memory_id) if memory_id == "" or memory_id != memory_id.strip() else memory_id
