"""How the sanitizer (present/text.py) spells a code point it escapes. Here, in the core, so that
erasure can find a data subject in a report that shows the subject escaped (store/reports.py)."""

from __future__ import annotations

SHORT: dict[str, str] = {"\n": "\\n", "\t": "\\t", "\\": "\\\\"}


def escape(char: str) -> str:
    """One code point as an escape: `\\n`, `\\t`, `\\\\`, `\\xNN` (below U+0100), `\\uNNNN`, or
    `\\u{NNNNN}` (above U+FFFF), hex in lowercase."""
    short = SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\u{{{code:x}}}"
