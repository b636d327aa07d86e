"""The write gate (DESIGN §2.3): which new entries and updates are held for review, and why.

Text checks use the detectors in the detect package; whether a summary would be supported is asked
of the belief rule itself (Store.what_if + support_at), so the gate and the rule cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import detect, policy
from .detect.batch import Judged
from .chain import sha256_hex
from .detect.text import normalize
from .model import principal, segments, sensitivity_of

RULE = "rule_from_untrusted_source"
SECRET = "secret"
PROTECTED = "protected_key"
SUPPRESSED = "suppressed_subject"
UNSUPPORTED = "unsupported_summary"
REASONS = (SUPPRESSED, SECRET, PROTECTED, RULE, UNSUPPORTED)   # priority when several apply
MARKED_SECRET = "sensitivity is secret"     # a secret hold's words for an entry marked so


def subject_digest(salt: str, subject: str) -> str:
    """Salted SHA-256 of a data subject: it can confirm a match, never reveal the subject."""
    return sha256_hex((salt + "\n" + subject).encode("utf-8"))


# Characters drawn as nothing (the Hangul fillers, the Khmer inherent vowels, the Mongolian
# variation selectors) or as a blank (the braille blank) that NFKC keeps: a name that holds one
# is the name spelled otherwise (helper-72: `user:7` + U+2800 was neither erased nor named).
_DRAWN_AS_NOTHING = {c: None for c in (0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D,
                                       0x180F, 0x3164, 0xFFA0)} | {0x2800: " "}


def fold(text: str) -> str:
    """The form names, reasons and erased texts are compared in: NFKC, case folded, invisible
    characters (zero-width, bidi controls, tags, fillers) removed, blanks and runs of spaces
    made one space, none at the ends."""
    return " ".join(normalize(normalize(text.translate(_DRAWN_AS_NOTHING)).casefold()).split())


@dataclass
class Suppression:
    """Salted digests of erased subjects (rebuilt from the log's erase events)."""

    digests: set[tuple[str, str]] = field(default_factory=set)   # (salt, digest)

    def matches(self, entry: dict) -> bool:
        """Whether the entry names an erased subject, as written or spelled otherwise: each name
        is also tried folded (`fold`), so `USER:7` and `user:7` + a zero-width space match an
        erased `user:7` (helper-72: only the exact spelling was held)."""
        names = identifiers(entry)
        names |= {fold(name) for name in names}
        return any(subject_digest(salt, name) == digest
                   for salt, digest in self.digests for name in names)


def identifiers(entry: dict) -> set[str]:
    """What §6 matches a subject against: subject, entity and its segments, scope segments,
    source principal."""
    names = {entry.get("subject"), entry.get("entity"), principal(entry.get("source") or "")}
    names.update(segments(entry.get("entity") or ""))
    names.update(segments(entry.get("scope") or ""))
    return {n for n in names if n}


def is_trusted(entry: dict) -> bool:
    """operator and system sources, and user:X writing inside its own space. Any entry can be
    asked, one the contract refuses too (a batch asks before the contract has): a source or
    scope that is not a string trusts no one."""
    source, scope = entry.get("source"), entry.get("scope")
    if not isinstance(source, str) or not isinstance(scope, (str, type(None))):
        return False
    who = principal(source)
    kind = who.split(":", 1)[0]
    if kind in ("operator", "system"):
        return True
    return kind == "user" and who in segments(scope or "")


def _first(entry: dict, detector) -> detect.Finding | None:
    """The first finding of `detector` in any string of the entry's value."""
    return next((f for f in map(detector, detect.texts_of(entry.get("value"))) if f), None)


def rule_finding(entry: dict, judged: Judged | None = None) -> detect.Finding | None:
    """The instruction aimed at the agent in this entry's value, if any (`judged`: the
    answers for a batch of texts, detect.batch.judge)."""
    return _first(entry, judged.rule_shape if judged else detect.rule_shape)


def secret_finding(entry: dict, judged: Judged | None = None) -> detect.Finding | None:
    return _first(entry, judged.secret if judged else detect.secret)


def batch_texts(entries) -> tuple[list[str], list[str]]:
    """The texts judge asks secret of, and those it asks rule_shape of, for these entries
    (for detect.batch.judge: the questions of a whole feed or store asked at once)."""
    secret_texts: list[str] = []
    rule_texts: list[str] = []
    for entry in entries:
        texts = detect.texts_of(entry.get("value"))
        secret_texts += texts
        if not is_trusted(entry) and entry.get("layer") != "procedural":
            rule_texts += texts
    return secret_texts, rule_texts


@dataclass(frozen=True)
class Hold:
    reason: str        # the held_reason
    detail: str        # what matched, for the hold event's reason (a secret masked)


def judge(entry: dict, suppression: Suppression, key_policy: policy.Policy = policy.DEFAULT,
          judged: Judged | None = None) -> Hold | None:
    """Every reason but unsupported_summary (which needs the store), highest priority first,
    with what matched (the text answers taken from `judged` where it holds them)."""
    if suppression.digests and suppression.matches(entry):
        return Hold(SUPPRESSED, "suppressed_subject: it names a data subject erased before")
    if sensitivity_of(entry.get("sensitivity")) == "secret":
        return Hold(SECRET, f"{SECRET}: {MARKED_SECRET}")
    found = secret_finding(entry, judged)
    if found:
        return Hold(SECRET, f"secret: {found.category}: {found.excerpt}")
    breach = key_policy.breach(entry)
    if breach is not None:
        return Hold(PROTECTED, key_policy.reason(entry, breach))
    if not is_trusted(entry):
        if entry.get("layer") == "procedural":
            return Hold(RULE, f"{RULE}: a procedural entry from {entry.get('source')}")
        hit = rule_finding(entry, judged)
        if hit:
            return Hold(RULE, f"{RULE}: {hit.category}: {hit.excerpt!r}")
    return None


def text_reason(entry: dict, suppression: Suppression,
                key_policy: policy.Policy = policy.DEFAULT) -> str | None:
    """The held_reason alone (see judge)."""
    held = judge(entry, suppression, key_policy)
    return held.reason if held else None
