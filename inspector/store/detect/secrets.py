"""secret: the first credential in a string (known key and token formats, passwords,
short codes introduced as one — "security code is 463820", "PIN: 0417", "secret key is
1a7b3d" —, long random tokens after a key-like name), its value masked so a report never
re-leaks it. A number without such a keyword ("order 463820 shipped", "room 0417") is not one."""

from __future__ import annotations

import math
import re

from .markup import in_either_reading
from .text import Finding, _excerpt, _foldable, _trie, normalize

# Each credential format: (category, substrings one of which must be present, pattern).
# The substring test is C-speed and skips the regex for almost every string.
SECRET_FORMATS: list[tuple[str, tuple[str, ...], re.Pattern]] = [
    ("private_key", ("-----begin",), re.compile(
        r"-----BEGIN (?:RSA |DSA |EC |OPENSSH |PGP |ENCRYPTED |SSH2 )?PRIVATE KEY"
        r"(?: BLOCK)?-----")),
    ("aws_access_key", ("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"),
     re.compile(
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b")),
    ("github_token", ("gh",), re.compile(
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b")),
    ("slack_token", ("xox",), re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("slack_webhook", ("hooks.slack.com",), re.compile(
        r"hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+")),
    ("anthropic_key", ("sk-ant-",), re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("openai_key", ("sk-",), re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("stripe_key", ("_live_", "_test_"), re.compile(
        r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}")),
    ("google_api_key", ("aiza",), re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("jwt", ("eyj",), re.compile(
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    # A scheme of at most 32 characters (RFC 3986 sets none; real ones are short): unbounded,
    # every letter of "http://a.a.a.…" began a scheme read to the end, and an 80 KB value
    # took half a minute in the gate.
    ("password_in_url", ("://",), re.compile(
        r"\b[a-z][a-z0-9+.-]{0,31}://[^\s:/@]+:(?P<value>[^\s@/]+)@[^\s/]+", re.I)),
]

# A value after a password-like name counts however short ("password=hunter2"); a
# colon or "is" only when the value looks like one (a digit or symbol in it), so
# "password: reset requested" stays prose.
_PASSWORD = re.compile(
    r"\b(?:pass(?:word|wd|phrase)?|pwd|pin)\s*=\s*(?P<assigned>[^\s,;&'\"]+)|"
    r"\b(?:pass(?:word|wd|phrase)|pwd|pin(?: code)?)\s*(?::|\bis\b)\s*['\"]?"
    r"(?P<stated>(?=\S*[\d!@#$%^&*_+=?])[^\s,;'\"]{4,})", re.I)
_PLACEHOLDER = re.compile(r"^(?:\*+|x+|<[^>]*>|\{[^}]*\}|\$\{?\w+\}?|%\w+%|none|null|"
                          r"redacted|changeme|\.\.\.|…)$", re.I)
# A long random token after a key-like name ("api_key=…", "token: …", "secret …").
_KEYED = re.compile(
    r"\b(?:api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret(?:[_-]?key)?|client[_-]?secret|"
    r"auth(?:[_-]?token)?|token|bearer|private[_-]?key|session[_-]?(?:id|key|token)|"
    r"credentials?)\b['\"]?\s*(?:[:=]|\bis\b)?\s*['\"]?(?:bearer\s+)?"
    r"(?P<value>[A-Za-z0-9+/_.~=-]{16,})",
    re.I)
# A short code introduced as a credential (DESIGN §2.3): a keyword naming a one-time,
# security or secret code, PIN or key, then 3-12 letters and digits with a digit in them.
_SHORT_CODE = re.compile(
    r"\b(?:(?:security|verification|verify|confirmation|authenti[ck]ation|auth|login|log-?in|"
    r"sign-?in|access|one[- ]?time|2fa|mfa|two[- ]factor|sms|backup|recovery|reset|pairing|"
    r"activation|unlock|safe|door|alarm|gate|secret|private|master)\s+(?:code|pin|key|passcode|"
    r"pass ?code|word)|otp|totp|pin(?: code| number)?|passcode|cvv|cvc|security pin)"
    r"s?\b\s*(?:(?:is|was|will be|:|=|-|#)\s*)*(?:now\s*)?:?\s*['\"([{<]?"
    r"(?P<value>(?=[a-z0-9-]*\d)[a-z0-9][a-z0-9-]{2,11})\b(?![.,/:]\d)", re.I)
_NAME_HINTS = ("pass", "pwd", "pin", "key", "secret", "token", "auth", "bearer", "credential",
               "code", "otp", "cvv", "cvc")
# Every hint, tried as a substring of the lower-cased text (C-speed; faster than one
# alternation, whose first letters are most letters): most strings hold none and are done.
_HINTS = tuple(sorted({hint for _, hints, _ in SECRET_FORMATS for hint in hints}
                      | set(_NAME_HINTS)))
_CODE_HINTS = ("code", "pin", "otp", "key", "cvv", "cvc")
_DIGIT = re.compile(r"\d")
# Whether any hint is there at all, in one scan (a regex with the hints' common prefixes
# factored out): most strings hold none and are done.
_ANY_HINT = re.compile(_trie(_HINTS))
# The hints without which _PASSWORD and _KEYED cannot match (with "session", which is no
# hint): tested only where `in` on the lower-cased text is what re.I would match
# (text._foldable), else those patterns run as they always did.
_PASSWORD_HINTS = ("pass", "pwd", "pin")
_KEYED_HINTS = ("key", "secret", "auth", "token", "bearer", "credential")


def secret(text: str) -> Finding | None:
    """The first credential in the text, its value masked in the excerpt; in the text as
    written or, if it has inline markup, as rendered (markup.plain_reading: "PIN:
    **4821**")."""
    return in_either_reading(secret_as_written, text)


def secret_as_written(text: str) -> Finding | None:
    text = normalize(text)
    lower = text.lower()
    if not _ANY_HINT.search(lower):
        return None
    present = [hint for hint in _HINTS if hint in lower]
    for category, hints, pattern in SECRET_FORMATS:
        match = pattern.search(text) if any(hint in present for hint in hints) else None
        if match:   # a key's armour header is not the secret: show it whole
            shown = match.group(0) if category == "private_key" else _masked(match)
            return Finding("secret", category, shown)
    short = (_short_code(text) if any(h in present for h in _CODE_HINTS) and _DIGIT.search(text)
             else None)
    if short:
        return short
    folded = _foldable(text)
    found = (_password(text) if not folded or any(h in present for h in _PASSWORD_HINTS)
             else None)
    if found:
        return found
    if not folded or "session" in lower or any(h in present for h in _KEYED_HINTS):
        return _keyed_token(text)
    return None


def _short_code(text: str) -> Finding | None:
    for match in _SHORT_CODE.finditer(text):
        value = match.group("value")
        if not _PLACEHOLDER.match(value):
            return Finding("secret", "short_code", _masked(match, value))
    return None


def _password(text: str) -> Finding | None:
    for match in _PASSWORD.finditer(text):
        value = match.group("assigned") or match.group("stated")
        if value and not _PLACEHOLDER.match(value):
            return Finding("secret", "password", _masked(match, value))
    return None


def _keyed_token(text: str) -> Finding | None:
    for match in _KEYED.finditer(text):
        if _looks_random(match.group("value")):
            return Finding("secret", "generic_high_entropy", _masked(match, match.group("value")))
    return None


def _looks_random(value: str) -> bool:
    """Mixed character classes and high per-character entropy: a key, not a word."""
    classes = sum(bool(re.search(p, value)) for p in ("[a-z]", "[A-Z]", "[0-9]"))
    return classes >= 2 and _entropy(value) >= 3.0


def _entropy(value: str) -> float:
    counts = [value.count(c) for c in set(value)]
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts)


def _masked(match: re.Match, value: str | None = None) -> str:
    """The match with its secret part reduced to its length, so a report never re-leaks it.
    A key of a known format (no `value` given) keeps its first four characters, which are
    the format's (`sk-l…[40 chars]`); a password, a code or a token named by a keyword
    keeps none: its first characters are the secret's own (helper-67: `password:
    hunt…[14 chars]` in a hold reason)."""
    snippet = match.group(0)
    known_format = value is None
    value = value or (match.groupdict().get("value") if match.groupdict() else None) or snippet
    keep = value[:4] if known_format and len(value) >= 12 else ""
    return _excerpt(snippet.replace(value, f"{keep}…[{len(value)} chars]", 1))
