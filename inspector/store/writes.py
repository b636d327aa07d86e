"""The one way a new entry state is made and judged before it is written, for `ingest`, the
importers and any writer on the append API: merge the incoming fields over the current
state, validate the result (contract), and pass it through the write gate."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from . import detect, gate, policy
from .append import event_draft
from .contract import entry_problem
from .detect.batch import Judged
from .model import ENTRY_DEFAULTS, SENSITIVITIES, sensitivity_of

GATE_DECIDES = ("status", "held_reason")     # a feed's values for these are ignored


class InvalidEntry(ValueError):
    """The merged state breaks the contract; the message names the field."""


@dataclass
class Admitted:
    draft: dict | None          # None: the state would not change (nothing to write)
    kind: str                   # "write" (a new id) or "update"
    held: str | None            # the gate's held_reason, if it held the entry


def merged(before: dict | None, fields: dict) -> dict:
    """The state a write or update of `fields` leaves: defaults, then the current state, then
    the new fields; status and held_reason stay as they were (the gate decides)."""
    after = {**ENTRY_DEFAULTS, **(before or {}),
             **{k: v for k, v in fields.items() if k not in GATE_DECIDES}}
    after["status"] = before["status"] if before else "active"
    after["held_reason"] = before.get("held_reason") if before else None
    return after


# An address spelt out so that no "@" is in it: "someone(at)example.com", "x [at] y [dot] com",
# "bot at example.com" (helper-65). Read in identifiers only, where prose is not expected.
_SPELT_AT = re.compile(r"\s*[(\[{<]\s*at\s*[)\]}>]\s*|\s+at\s+", re.I)
_SPELT_DOT = re.compile(r"\s*[(\[{<]\s*dot\s*[)\]}>]\s*|\s+dot\s+", re.I)


def personal_data_in(text: str) -> str | None:
    """What personal data an identifier holds (detect.pii_named_in), read as written, with
    its percent escapes decoded ("agent:someone%40example.com": helper-65), and with an
    address's "(at)" and "(dot)" read as "@" and "." ("agent:someone(at)example.com"). A bare
    run of digits is not read as a phone number: ids and timestamps are such runs."""
    named = detect.pii_named_in(text)
    if named is None and "%" in text:
        text = unquote(text)
        named = detect.pii_named_in(text)
    if named is None and _SPELT_AT.search(text):
        named = detect.pii_named_in(_SPELT_DOT.sub(".", _SPELT_AT.sub("@", text)))
    return named


def id_problem(memory_id: str) -> str | None:
    """Why a new entry may not have this id: one that holds personal data. The id is in the
    envelope, which an erasure leaves as it was and lists in its certificate (format.md), so
    it would outlive every erasure. An id already written is not refused again (its updates
    and actions go on); `scan` reports it (pii.in_id)."""
    kind = personal_data_in(memory_id)
    if kind is None:
        return None
    return (f'field "id" holds personal data ({kind}): an id stays in the log and in erasure '
            'certificates after an erasure; use an opaque id (a UUID) and name the person in '
            '"subject"')


# Who may put an existing entry under legal hold or lift it: the hold keeps data an erasure
# would take (DESIGN §6). Held, a write would not do: the held state is the entry's state, so
# an erasure would read it without the hold (helper-63: an `importer:`/`agent:` update
# `"retention": null` lifted a hold, ungated, and the erasure that followed took the data;
# the other way, an agent could put a subject's entries out of a request's reach).
RETENTION_WRITERS = ("operator", "system")


def retention_problem(before: dict | None, after: dict, actor: str) -> str | None:
    """Why this writer may not make this change of `retention` (None: it may)."""
    if before is None or actor.split(":", 1)[0] in RETENTION_WRITERS:
        return None
    was, now = before.get("retention"), after.get("retention")
    if was == now or "legal_hold" not in (was, now):
        return None
    change = "take legal_hold off an entry" if was == "legal_hold" else "put an entry under legal_hold"
    return (f'field "retention": only an operator or system writer may {change} (this writer '
            f'is {actor}); have an operator write it, e.g. `inspector ingest … --actor operator:NAME`')


def sensitivity_problem(before: dict | None, after: dict) -> str | None:
    """Why `sensitivity` may not be written as it is (None: it may): only `pii`, `secret` or
    null. Every reader takes a spelling that differs by case, spaces or signs for that
    sensitivity (model.sensitivity_of), but a writer is told: another program reading the log
    would take "Secret" for no sensitivity and show the value. An entry the log already holds
    with such a value is not refused for it until its sensitivity changes."""
    value = after.get("sensitivity")
    if value is None or value in SENSITIVITIES or (before and before.get("sensitivity") == value):
        return None
    meant = sensitivity_of(value)
    said = f"write {meant!r}" if meant else "leave it out when neither applies"
    return f'field "sensitivity" must be pii, secret or null, not {value!r}: {said}'


def admit(before: dict | None, fields: dict, suppression: gate.Suppression, actor: str, *,
          reason: str | None = None, batch: str | None = None,
          key_policy: policy.Policy = policy.DEFAULT, judged: Judged | None = None) -> Admitted:
    """The event that writes `fields` over `before`: a write, an update or a hold (whose
    reason names what matched)."""
    after = merged(before, fields)
    kind = "update" if before else "write"
    if before is not None and after == before:
        return Admitted(None, kind, None)
    problem = entry_problem(after) or (None if before else id_problem(after["id"]))
    if problem:
        raise InvalidEntry(problem)
    problem = retention_problem(before, after, actor) or sensitivity_problem(before, after)
    if problem:
        raise InvalidEntry(problem)
    held = gate.judge(after, suppression, key_policy, judged)
    if held:
        after.update(status="held", held_reason=held.reason)
        reason = held.detail if reason is None else f"{reason}; {held.detail}"
    op = "hold" if held else kind
    return Admitted(event_draft(op, after["id"], actor, before=before, after=after, reason=reason,
                                batch=batch), kind, held.reason if held else None)
