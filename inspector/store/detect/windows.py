"""What of a text the gate model scores: its *segments*. A value of up to LONG characters is
one segment; a longer one (an e-mail, a report, a web page carried into memory) is cut into
windows of two consecutive sentences, so one instruction buried in a long benign carrier is
scored on its own and the carrier cannot dilute it. Text that a decoder can undo (base64, hex,
leetspeak, look-alike letters …, detect/decoders.py) adds its decoded form as a further
segment, when hints() finds the disguise likely. context_of() says what a long text is (a
letter, a chat log, code, a text about injection), as features of each of its windows.
"""

from __future__ import annotations

import codecs
import re

from .decoders import _CONFUSABLES, _ROT13, _SEPARATED, DECODERS, _tag_smuggled
from .text import normalize, remember_last

LONG = 300            # longer texts are scored per window of two sentences
MAX_WINDOWS = 400     # a hostile 50,000-character value is scored on its first windows

# A run of whitespace holding a line break is one split, taken from the run's first character:
# a position inside a run (after a space or tab) never starts a match, or a run of 100,000
# spaces would be scanned from each of its positions (quadratic: 8 s).
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<![^\S\n])[^\S\n]*+\n\s*")


def segments(text: str) -> list[tuple[str, bool]]:
    """(segment, decoded?) pairs: the whole text or its windows, plus its decodings. Segments
    keep their case (for excerpts); features are taken of them lower-cased."""
    plain = normalize(text)
    if len(plain) <= LONG:
        found = [(plain, False)]
    else:
        sentences = [s for s in _SENTENCE_SPLIT.split(plain) if s]
        if len(sentences) <= 2:
            found = [(plain[:LONG * 4], False)]
        else:
            found = [(sentences[i] + " " + sentences[i + 1], False)
                     for i in range(min(len(sentences) - 1, MAX_WINDOWS))]
    for decoded in _decodings(text, plain):
        found.append((decoded[:LONG * 4], True))
    return found


_DIGIT = re.compile(r"\d")
_LEET_DIGITS = re.compile(r"[a-z][013457]+[a-z]", re.I)
_LONG_RUN = re.compile(r"[A-Za-z0-9+/_=-]{16,}")
_HYPHEN_SPLIT = re.compile(r"(?<=[a-z])-(?=[a-z])", re.I)
# Every match holds a separator, a character, a separator (decoders._SEPARATED, which scans
# several times faster, since few characters can start it): _hints searches for that first.
_LETTER_RUN = re.compile(r"\b(?:\w[.\-_*·]){3,}\w\b")
_PERCENT = re.compile(r"(?:%[0-9a-f]{2}){3}", re.I)
_ENTITY = re.compile(r"&#?\w{1,8};")
_CUES = re.compile(r"\b(?:rot-? ?\d+|caesar|shift(?:ed)?|backwards?|revers\w*)\b", re.I)
_CONFUSABLE_CHARS = frozenset(chr(c) for c in _CONFUSABLES)


@remember_last
def hints(text: str) -> frozenset[str]:
    """_hints, remembered for the last string (segments asks it, then shape's rule gate
    asks it of the same string)."""
    return frozenset(_hints(text))


def _hints(text: str) -> set[str]:
    """Which decoders (decoders.py) a text may need, by tests stricter than the rules' own
    (the model only wants a decoding when a disguise is likely, not merely possible). Each
    regex is behind a C-speed test, so a plain value costs a few substring checks."""
    hints = set()
    if not text.isascii() and not _CONFUSABLE_CHARS.isdisjoint(text):
        hints.add("homoglyphs")
    if len(text) >= 16 and max(map(len, text.split()), default=0) >= 16 and _LONG_RUN.search(text):
        hints.update(("base64", "hex"))
    if _DIGIT.search(text):
        if len(_LEET_DIGITS.findall(text)) >= 2:
            hints.add("leet")
        if text.count("0") + text.count("1") >= 32:
            hints.add("binary")
    if ("-" in text and len(_HYPHEN_SPLIT.findall(text)) >= 3) or (
            text.count(".") + text.count("-") + text.count("_") + text.count("*") >= 3
            and _SEPARATED.search(text) and _LETTER_RUN.search(text)):
        hints.add("split")
    if len(text) >= 12 and text.count(" ") * 3 >= len(text):
        hints.add("spaced")
    if (text.count(".") + text.count("-")) * 3 >= len(text) > 8:
        hints.add("morse")
    if "%" in text and _PERCENT.search(text):
        hints.add("percent")
    if "&" in text and len(_ENTITY.findall(text)) >= 2:
        hints.add("entities")
    if "\\u" in text or "\\x" in text:
        hints.add("escapes")
    lower = text.lower()
    if ("rot" in lower or "caesar" in lower or "shift" in lower or "backward" in lower
            or "revers" in lower) and _CUES.search(text):
        hints.add("reversed")
        hints.add("rot")
    return hints


def _decodings(text: str, plain: str) -> list[str]:
    """The text with each disguise it likely wears undone (at most 3)."""
    found = []
    smuggled = _tag_smuggled(text)
    if smuggled:
        found.append(smuggled)
    likely = hints(plain)
    if not likely:
        return found
    for name, decode in DECODERS:
        if name in likely:
            decoded = decode(plain)
            if decoded and decoded != plain and re.search(r"[a-z]{3}", decoded, re.I):
                found.append(decoded)
    if "rot" in likely and _ROT13.search(plain):
        found.append(codecs.decode(plain, "rot13"))
    return found[:3]


_GREETING = re.compile(r"^(?:subject:[^\n]*\n\s*)?(?:hi|hello|hey|dear|good (?:morning|afternoon|"
                       r"evening)|greetings|team|all|morning|folks)\b", re.I)
_SIGNOFF = re.compile(r"\b(?:thanks|thank you|regards|cheers|best|sincerely|kind regards)\b",
                      re.I)
_ABOUT = ("injection", "jailbreak", "payload", "red team", "red-team", "adversarial",
          "prompt attack", "phishing")
# Only a line's own leading blanks before the speaker: `\s*` after a line break spanned every
# line break after it, so 100,000 of them took 145 s.
_TURNS = re.compile(r"(?:^|\n)[^\S\n]*(?:user|human|assistant|ai|bot)\s*:", re.I)


def context_of(plain: str) -> frozenset[str]:
    """What a long text (a carried document) is, as features of each of its windows: empty
    for a value short enough to be one segment."""
    if len(plain) <= LONG:
        return frozenset()
    lower = plain.lower()
    found = {"carrier"}
    if any(word in lower for word in _ABOUT):
        found.add("doc:about_injection")
    if _GREETING.search(plain[:200].lstrip()) or _SIGNOFF.search(plain[-200:]):
        found.add("doc:letter")
    if len(_TURNS.findall(plain)) >= 3:
        found.add("doc:chat_log")
    code_marks = plain.count("{") + plain.count(";") + plain.count("=") + plain.count("()")
    if code_marks >= len(plain) / 80:
        found.add("doc:code")
    return frozenset(found)
