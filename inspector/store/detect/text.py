"""What every detector shares: the Finding it reports, ``normalize`` (the text every
matcher runs on), ``texts_of`` (the strings inside a JSON value) and the excerpt and
word helpers."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

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
