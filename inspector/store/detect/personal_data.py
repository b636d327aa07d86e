"""pii: the e-mail addresses and phone numbers in a string (a number is a phone
only where it is shaped like one and not labelled as an order, invoice or other id)."""

from __future__ import annotations

import re

from .text import Finding, normalize

_EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
# International numbers start with "+" and a country code; NANP numbers are
# (415) 555-0132 / 415-555-0132 / 415.555.0132. The look-arounds refuse digits,
# dots or dashes glued on either side, which is what dates, versions, IPs and
# order ids have.
_PHONE = re.compile(
    r"(?<![\w.+/-])(?:"
    r"\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}"
    r"|(?:\+?1[ .-]?)?(?:\(\d{3}\)\s?|\d{3}[ .-])\d{3}[ .-]\d{4}"
    r")(?![\w.-]*\d)(?!-\w)")
# A national number (020 7946 0958) only where the text says it is a phone.
_NATIONAL = re.compile(r"\b(?:tel|phone|mobile|cell|call|ring|fax|whatsapp|landline)\b[.:]?\s*"
                       r"(?P<number>0\d{2,4}[ -]?\d{3,4}[ -]?\d{3,4})(?![\w.-]*\d)", re.I)
# Words just before a number that make it an identifier rather than a phone.
_ID_CONTEXT = re.compile(
    r"\b(?:order|invoice|ref(?:erence)?|id|no\.?|#|ticket|case|acct|account|sku|part|serial|"
    r"tracking|po|isbn|version|v)\s*[:#]?\s*$|#\s*$", re.I)


def pii(text: str) -> list[Finding]:
    """Every e-mail address and phone number in the text."""
    text = normalize(text)
    found = []
    if "@" in text:
        found += [Finding("pii", "email", m.group(0)) for m in _EMAIL.finditer(text)]
    if _DIGITS.search(text):
        found += [Finding("pii", "phone", m.group(0)) for m in _PHONE.finditer(text)
                  if _is_phone(m, text)]
        found += [Finding("pii", "phone", m.group("number")) for m in _NATIONAL.finditer(text)]
    return found


_DIGITS = re.compile(r"\d[ ().-]{0,2}\d")   # cheap: no two near digits, no phone


def _is_phone(match: re.Match, text: str) -> bool:
    digits = sum(ch.isdigit() for ch in match.group(0))
    if not 10 <= digits <= 15 and not (match.group(0).startswith("+") and digits >= 8):
        return False
    before = text[max(0, match.start() - 24):match.start()]
    return not _ID_CONTEXT.search(before) or bool(_PHONE_WORD.search(before))


_PHONE_WORD = re.compile(r"\b(?:tel|phone|mobile|cell|call|fax)\b", re.I)


_KIND_WORDS = {"email": "an e-mail address", "phone": "a phone number"}


def pii_named_in(text: str) -> str | None:
    """What personal data `text` holds, in words ("an e-mail address and a phone number"), or
    None. For fields that must not carry any (an entry's id: DESIGN §2.1, the envelope)."""
    kinds = sorted({f.category for f in pii(text)})
    return " and ".join(_KIND_WORDS[k] for k in kinds) if kinds else None
