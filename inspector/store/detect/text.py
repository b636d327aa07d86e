"""What every detector shares: the Finding it reports, ``normalize`` (the text every
matcher runs on), ``texts_of`` (the strings inside a JSON value), the excerpt and word
helpers, and what lets a case-insensitive match be looked for fast (``_foldable``: may
text.lower() stand in for re.I; ``_trie``: one regex for many literal strings)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

EXCERPT_MAX = 80


@dataclass(frozen=True)
class Finding:
    kind: str        # "rule_shape" | "secret" | "pii"
    category: str
    excerpt: str     # the matched, normalized snippet (a secret's value masked)


def _invisible_table() -> dict[int, None]:
    """Format characters that render as nothing: zero-width, bidi controls, tags."""
    ranges = [(0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x180E, 0x180E),
              (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0xFE00, 0xFE0F),
              (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
              (0xE0000, 0xE007F), (0xE0100, 0xE01EF)]
    return {c: None for lo, hi in ranges for c in range(lo, hi + 1)}


_INVISIBLE = _invisible_table()


def normalize(text: str) -> str:
    """NFKC with invisible format characters removed; case is kept."""
    if text.isascii():          # ASCII is NFKC-stable and holds no format characters
        return text
    return _normalized(text)


def remember_last(fn):
    """fn(text), remembered for the last string: the gate asks the same question of the same
    string several times (the model, then the rule gate). Kept as one (text, answer) tuple,
    so a reader in another thread sees a consistent pair; fn must be a pure function."""
    last: tuple[str, object] = ("", None)

    def remembered(text: str):
        nonlocal last
        seen = last
        if seen[0] == text and text:
            return seen[1]
        answer = fn(text)
        last = (text, answer)
        return answer

    remembered.__doc__, remembered.__name__ = fn.__doc__, fn.__name__
    return remembered


@remember_last
def _normalized(text: str) -> str:
    """normalize of a non-ASCII text (the gate normalizes each string several times: secret,
    rule_shape, its model, rule_match)."""
    return unicodedata.normalize("NFKC", text.translate(_INVISIBLE))


def texts_of(value) -> list[str]:
    """Every string in a JSON value, dict keys included, in document order. Iterative: a
    hostile value may nest thousands of levels."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                stack.append(child)
                stack.append(key)
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
    return found


def _excerpt(snippet: str) -> str:
    snippet = " ".join(snippet.split())
    return snippet if len(snippet) <= EXCERPT_MAX else snippet[:EXCERPT_MAX - 1] + "…"


_WORD = re.compile(r"\w+")


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_DECIMAL = re.compile(r"\d")


def _foldable(text: str) -> bool:
    """Is lower-casing the text exactly what re.I folds, so that a case-insensitive
    pattern can run case-sensitively over text.lower() and a literal it needs be looked
    for with `in` (rules.Rule.folded, secrets.secret)? ASCII text is; so is text whose
    other characters are caseless (punctuation, symbols, CJK, emoji) or plain letters with
    one lower and one upper case, neither of them ASCII nor in the regex engine's extra
    case equivalences (é/É, ü, ñ, but not ı, İ, ſ, K, σ/ς), and none a digit (a gate reads
    \\d as 0-9). Any other text takes the re.I patterns themselves."""
    if text.isascii():
        return True
    other = "".join(_NON_ASCII.findall(text))
    if other.lower() == other == other.upper() and not _DECIMAL.search(other):
        return True
    return all(map(_folds, set(other)))


try:
    from re._casefix import _EXTRA_CASES
except ImportError:                     # pragma: no cover - then only caseless characters
    _EXTRA_CASES = None


@lru_cache(maxsize=4096)
def _folds(char: str) -> bool:
    """One non-ASCII character that re.I folds exactly as str.lower does."""
    if char.isdecimal():
        return False
    lower, upper = char.lower(), char.upper()
    if lower == char == upper:
        return True
    if _EXTRA_CASES is None or len(lower) != 1 or len(upper) != 1:
        return False
    return (not lower.isascii() and not upper.isascii() and lower.upper() == upper
            and upper.lower() == lower and lower.isalnum() == char.isalnum()
            and not lower.isdecimal()
            and not any(ord(c) in _EXTRA_CASES for c in (char, lower, upper)))


def _trie(strings) -> str:
    """One regex for any of the strings, their common prefixes factored out (the engine
    then tries one character per branch, not every string at every position). Where one
    string ends, longer ones with it as prefix are left out: they hold it."""
    root: dict = {}
    for string in strings:
        node = root
        for char in string:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict) -> str:
        if "" in node:
            return ""
        alternatives = [re.escape(char) + emit(child) for char, child in sorted(node.items())]
        if len(alternatives) == 1:
            return alternatives[0]
        return "(?:" + "|".join(alternatives) + ")"
    return emit(root)
