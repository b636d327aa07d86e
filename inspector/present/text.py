"""The one sanitizer: every untrusted string reaches the screen through here.

Memory values, sources, reasons, ids and contexts are written by agents and by
whatever the agents read, so they are treated as attacks (DESIGN §9). Given a
str, Rich and Textual parse markup (`[@click=app.quit]`, `[link=…]`, `[/oops]`
crashes a DataTable) and emoji codes, and they pass ESC through to the
terminal: an `ESC]52` in a value would be a clipboard write. This module turns
any value into plain text that is never parsed as markup and in which every
dangerous code point is a visible escape. It is lossless, so two different
values never look the same on screen, and `decode` inverts it.

It imports only `rich`, never `textual`: the CLI uses it too and must import
without Textual.

Escape grammar of `render` (hex is lowercase):

- Dangerous code points become `\\xNN` (below U+0100), `\\uNNNN`, or
  `\\u{NNNNN}` (above U+FFFF): C0 controls except newline and tab, DEL, C1
  (U+0080–U+009F), the soft hyphen, the invisible zero-width and format
  characters (U+034F, U+200B–U+200D, U+2060–U+2064, U+206A–U+206F, U+FEFF,
  U+FFF9–U+FFFB, U+1BCA0–U+1BCA3, U+1D173–U+1D17A), the characters drawn as
  nothing that a name or a word can hide in (the Hangul fillers U+115F, U+1160,
  U+3164, U+FFA0, the Khmer inherent vowels U+17B4, U+17B5, the Mongolian
  vowel separator and free variation selectors U+180B–U+180F), the tag characters
  U+E0000–U+E007F and the variation selectors U+FE00–U+FE0F and
  U+E0100–U+E01EF (all of these hide text from a reader that an agent still
  reads: a run of selectors after an emoji carries any bytes, "emoji
  smuggling"), the emoji skin-tone modifiers U+1F3FB–U+1F3FF (terminals and
  Rich disagree on a modified emoji's width, so the rest of its row would
  shift), the bidi controls
  U+202A–U+202E and U+2066–U+2069, the bidi marks U+200E, U+200F, U+061C, the
  separators U+2028 and U+2029 (some widgets break lines on them) and lone
  surrogates U+D800–U+DFFF (a terminal write of one raises, so a value could
  crash the screen). An emoji drawn with U+FE0F ("⚠️") is shown as `⚠\\ufe0f`:
  honest and the same width everywhere.
- With `one_line=True` newline and tab also become `\\n` and `\\t`.
- A literal backslash is doubled iff the next rendered character is `\\`, `x`
  or `u` (also `n` or `t` with `one_line=True`); otherwise it stays single, so
  `C:\\Windows\\bob` reads as written.

`decode` reads left to right: `\\\\` is one backslash, `\\xNN` and `\\uNNNN`
(and `\\n`, `\\t` with `one_line=True`) are the escaped code point, and any
other backslash is itself.

`render_message` escapes a one-line message the same way but leaves its backslashes as they
are (the messages quote untrusted text with repr(), which escaped them already).

`safe_json` shows a structured value as JSON text instead, with JSON's own
escapes (`\\uNNNN` for the same dangerous code points), so what is on screen
stays valid JSON of the value.

When the output cannot hold every code point (`set_output_encoding`: an ASCII or Latin-1
terminal), the code points its encoding lacks are escaped too, by the same grammar (`ü` as
`\\xfc` on ASCII), so a value still reads one way only and `decode` still inverts it.
"""

from __future__ import annotations

import codecs
import json
import re
from functools import lru_cache
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NamedTuple

if TYPE_CHECKING:     # imported where a Text is made: a command printing JSON never needs Rich
    from rich.text import Span, Text

from ..store import escapes, jsonsafe

ESCAPE_STYLE: Final = "reverse"
"""How escapes, doubled backslashes and truncation marks are drawn: reverse
video shows on every theme and on monochrome terminals."""

ELLIPSIS: Final = "…"

DANGEROUS: Final = (
    r"\x00-\x08\x0b-\x1f\x7f-\x9f\xad"
    r"\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028\u2029"
    r"\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\ud800-\udfff"
    r"\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U0001f3fb-\U0001f3ff"
    r"\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
# One-line text also escapes the blanks that look like a space or like nothing; one value on
# its own (a table cell, an id: `edges`) also the spaces it begins or ends with (`\x20`): `H1 `,
# `H1` + NBSP and `H1` + a braille blank were all drawn `H1`, and an operator who copied one
# acted on another (helper-72). A line the tool composes keeps its own indentation.
BLANKS: Final = r"\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u2800"
# A value on its own also escapes the letters of other scripts drawn like Latin ones (Cyrillic
# `Н`, Greek `Η`, Armenian `օ`, the mathematical alphanumerics `𝐇`), in a word that mixes them
# with Latin letters or holds no letter of its own script that does not look Latin: `Н1` and
# `H1`, `pаypal` and `paypal` were drawn alike (helper-72). A word of that script (`Привет`,
# `user:Иван`) is drawn as written.
LOOK_ALIKES: Final = (
    "\u0405\u0406\u0408\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422"
    "\u0423\u0425\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0455\u0456\u0458\u04ae"
    "\u04bb\u04c0\u04cf\u0501\u051a\u051b\u051c\u051d"
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5"
    "\u03a7\u03b9\u03bd\u03bf"
    "\u0570\u057d\u0585"
)
_LOOK_ALIKE: Final = re.compile(f"[{LOOK_ALIKES}\U0001d400-\U0001d7ff]")
_WORD: Final = re.compile(r"\w+")
_SHORT_UNESCAPES: Final = {"n": "\n", "t": "\t", "\\": "\\"}


class _Grammar(NamedTuple):
    needs_work: re.Pattern[str]  # any dangerous char or backslash: slow path
    token: re.Pattern[str]  # a char to escape, or a backslash to double
    escape: re.Pattern[str]  # one escape, for decode


def _grammar(one_line: bool, unwritable: str = "", edges: bool = False) -> _Grammar:
    dangerous = DANGEROUS + unwritable + (r"\t\n" + BLANKS if one_line else "")
    letters = "xunt" if one_line else "xu"
    short = "|[nt]" if one_line else ""
    # One line: the spaces it begins or ends with are escaped too (a backslash before them is
    # doubled, as before any escape).
    ends, before_end = (r"|^ +| +\Z", r"| +\Z") if one_line and edges else ("", "")
    return _Grammar(
        needs_work=re.compile(rf"[\\{dangerous}]{ends}"),
        token=re.compile(rf"\\(?=[\\{letters}{dangerous}]{before_end})|[{dangerous}]{ends}"),
        escape=re.compile(rf"\\(?:\\|x[0-9a-f]{{2}}|u(?:[0-9a-f]{{4}}|\{{[0-9a-f]{{5,6}}\}}){short})"),
    )


_GRAMMARS: Final = {(one_line, edges): _grammar(one_line, edges=edges)
                     for one_line in (False, True) for edges in (False, True)}

# The output's encoding when it cannot hold every code point; None for UTF-8 (and the TUI).
_output_encoding: str | None = None


def set_output_encoding(encoding: str | None) -> None:
    """Escape, besides the dangerous code points, those `encoding` cannot write (the command
    line sets its stdout's): text shown stays writable and unambiguous."""
    global _output_encoding
    name = codecs.lookup(encoding).name if encoding else "utf-8"
    _output_encoding = None if name.startswith("utf") else name


def writable(s: str) -> bool:
    """Whether the output's encoding can write `s` as it is."""
    if _output_encoding is None:
        return True
    try:
        s.encode(_output_encoding)
    except UnicodeEncodeError:
        return False
    return True


def _unwritable(s: str) -> str:
    """The code points of `s` the output cannot write, as the body of a regex class."""
    if writable(s):
        return ""
    return "".join(re.escape(c) for c in sorted(set(s)) if not writable(c))


@lru_cache(maxsize=256)
def _extended(one_line: bool, unwritable: str, edges: bool) -> _Grammar:
    return _grammar(one_line, unwritable, edges)


def _look_alikes(s: str) -> str:
    """The letters of `s` drawn like Latin ones that a value on its own escapes (LOOK_ALIKES),
    as the body of a regex class."""
    if s.isascii() or _LOOK_ALIKE.search(s) is None:
        return ""
    found: set[str] = set()
    for word in _WORD.findall(s):
        alike = set(_LOOK_ALIKE.findall(word))
        if alike and (any(c.isascii() and c.isalpha() for c in word)
                      or not any(c.isalpha() and not c.isascii() and c not in alike
                                 for c in word)):
            found |= alike
    return "".join(re.escape(c) for c in sorted(found))


def _grammar_of(s: str, one_line: bool, edges: bool = False) -> _Grammar:
    """The grammar for `s`: the dangerous code points, those the output cannot write, and for a
    value on its own (`edges`) the letters drawn like Latin ones."""
    unwritable = _unwritable(s)
    edges = edges and one_line
    if edges:
        unwritable += _look_alikes(s)
    return _extended(one_line, unwritable, edges) if unwritable else _GRAMMARS[one_line, edges]


def _escape(char: str) -> str:
    if len(char) > 1:               # the spaces a one-line text begins or ends with
        return "".join(map(_escape, char))
    return escapes.escape(char)


def _unescape(match: re.Match[str]) -> str:
    body = match.group()[1:]
    short = _SHORT_UNESCAPES.get(body)
    return short if short is not None else chr(int(body[1:].strip("{}"), 16))


def render(s: str, *, one_line: bool = False, edges: bool = False) -> str:
    """`s` with every dangerous code point as a visible escape (module docstring); `edges`
    (one line): also the spaces it begins or ends with, as `\\x20` (a value on its own)."""
    grammar = _grammar_of(s, one_line, edges)
    if grammar.needs_work.search(s) is None:
        return s
    return grammar.token.sub(lambda m: _escape(m.group()), s)


_MESSAGE_TOKEN: Final = re.compile(rf"[{DANGEROUS}\t\n]")


def render_message(s: str) -> str:
    """A one-line message (an error, a warning) with every dangerous code point, newline and
    tab escaped, but backslashes as they are. Messages quote untrusted text with repr()
    (`id 'M\\x1b[31m'`), which already writes a backslash as two and ESC as `\\x1b`: doubling
    its backslashes again would show ESC as a literal backslash (`\\\\x1b`). Not lossless, as
    `render` is: a message is read, never decoded. What an output's encoding cannot write
    is escaped as by `render`."""
    unwritable = _unwritable(s)
    token = re.compile(rf"[{DANGEROUS}{unwritable}\t\n]") if unwritable else _MESSAGE_TOKEN
    return token.sub(lambda m: _escape(m.group()), s)


def decode(rendered: str, *, one_line: bool = False) -> str:
    """The string `render(…, one_line=one_line)` was given; for tests and tooling."""
    return _GRAMMARS[one_line, False].escape.sub(_unescape, rendered)


# A rendered string as pieces: (text, kind). Escapes are drawn in
# ESCAPE_STYLE; escapes and atoms are never cut by truncation.
_LITERAL, _ESCAPE, _ATOM = "literal", "escape", "atom"
_Pieces = list[tuple[str, str]]


def _pieces(
    s: str, pattern: re.Pattern[str], escape_of: Callable[[str], tuple[str, str]]
) -> _Pieces:
    pieces: _Pieces = []
    start = 0
    for match in pattern.finditer(s):
        if match.start() > start:
            pieces.append((s[start : match.start()], _LITERAL))
        pieces.append(escape_of(match.group()))
        start = match.end()
    if start < len(s):
        pieces.append((s[start:], _LITERAL))
    return pieces


def _to_text(pieces: _Pieces, style: str | None) -> Text:
    from rich.text import Span, Text
    spans: list[Span] = []
    position = 0
    for chunk, kind in pieces:
        if kind == _ESCAPE:
            spans.append(Span(position, position + len(chunk), ESCAPE_STYLE))
        position += len(chunk)
    return Text("".join(chunk for chunk, _ in pieces), style=style or "", spans=spans)


def _truncate(pieces: _Pieces, max_chars: int) -> _Pieces:
    """At most `max_chars` characters, ending in a styled ELLIPSIS if cut."""
    if sum(len(chunk) for chunk, _ in pieces) <= max_chars:
        return pieces
    ellipsis = ELLIPSIS if writable(ELLIPSIS) else "..."
    budget, kept = max_chars - len(ellipsis), []
    for chunk, kind in pieces:
        if len(chunk) > budget:
            if kind == _LITERAL and budget > 0:
                kept.append((chunk[:budget], kind))
            break
        kept.append((chunk, kind))
        budget -= len(chunk)
    return kept + [(ellipsis, _ESCAPE)]


def as_str(value: Any) -> str:
    """The text `safe` shows for a value: None is "", a dict, list or tuple is
    its JSON text (`json.dumps(ensure_ascii=False)`), anything else `str()`
    (so `True` is "True", `3.5` is "3.5")."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list, tuple)):
        return _json_text(value)
    return str(value)


def safe(value: Any, *, one_line: bool = False, style: str | None = None,
         max_chars: int | None = None, edges: bool = False) -> Text:
    """A Text whose plain is `render(as_str(value), one_line=…, edges=…)`, escapes in
    ESCAPE_STYLE (`edges`: a value shown on its own, a table cell or an id).

    `style` is the base style of the whole Text. Never parsed as markup or
    emoji; `no_wrap`/`overflow` are left to the caller. With `max_chars`, cut
    to at most that many characters ending in a styled "…", never inside an
    escape.
    """
    s = as_str(value)
    grammar = _grammar_of(s, one_line, edges)
    if grammar.needs_work.search(s) is None and (max_chars is None or len(s) <= max_chars):
        from rich.text import Text
        return Text(s, style=style or "")
    pieces = _pieces(s, grammar.token, lambda c: (_escape(c), _ESCAPE))
    if max_chars is not None:
        pieces = _truncate(pieces, max_chars)
    return _to_text(pieces, style)


SPACE_MARK: Final = "␠"


def safe_name(name: str, *, style: str | None = None) -> Text:
    """A name the operator must type exactly (an erasure's subject), as `safe(one_line=True)`
    draws it, with each space or other blank it begins or ends with drawn as a styled ␠:
    `user:42 ` and `user:42` looked the same in the list, and the confirmation refused the
    one typed without a word why (helper-67)."""
    from rich.text import Text
    core = name.strip()
    if core == name:        # edges: no space at its ends, so only the look-alike letters
        return safe(name, one_line=True, edges=True, style=style)
    start = name.index(core[0]) if core else len(name)
    end = start + len(core)
    text = Text(style=style or "")
    text.append(SPACE_MARK * start, style=ESCAPE_STYLE)
    text.append_text(safe(core, one_line=True, edges=True, style=style))
    text.append(SPACE_MARK * (len(name) - end), style=ESCAPE_STYLE)
    return text


# JSON text from json.dumps(ensure_ascii=False): its own escapes (`\"`, `\\`
# kept as they are; control escapes styled) and the dangerous code points it
# leaves raw, which only ever occur inside a JSON string.
_JSON_TOKEN: Final = re.compile(rf'\\(?:u[0-9a-f]{{4}}|[bfnrt"\\/])|[{DANGEROUS}]')


@lru_cache(maxsize=256)
def _json_token(unwritable: str) -> re.Pattern[str]:
    """_JSON_TOKEN that also takes the code points the output cannot write (only ever inside a
    JSON string: JSON's own syntax is ASCII), to be written as `\\uNNNN`."""
    return re.compile(rf'\\(?:u[0-9a-f]{{4}}|[bfnrt"\\/])|[{DANGEROUS}{unwritable}]')


def _json_piece(token: str) -> tuple[str, str]:
    if token in ('\\"', "\\\\", "\\/"):
        return token, _ATOM
    if token.startswith("\\"):
        return token, _ESCAPE
    code = ord(token)
    if code > 0xFFFF:  # JSON spells an astral code point as a UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}", _ESCAPE
    return f"\\u{code:04x}", _ESCAPE


def safe_json(value: Any, *, one_line: bool = False, max_chars: int | None = None) -> Text:
    """A JSON value as compact JSON text (`json.dumps(ensure_ascii=False)`).

    Dangerous code points become JSON `\\uNNNN` escapes, so the plain text is
    still valid JSON of the same value (`json.loads` is the inverse) and its
    own escapes are not doubled; control escapes are drawn in ESCAPE_STYLE.
    JSON text never holds a raw newline or tab, so `one_line` changes nothing
    and is accepted for symmetry with `safe`. With `max_chars`, the text is cut
    to at most that many characters ending in a styled "…", never inside an
    escape.
    """
    if max_chars is not None and max_chars < len(ELLIPSIS):
        raise ValueError(f"max_chars must be at least {len(ELLIPSIS)}, not {max_chars}")
    s = _json_text(value)
    unwritable = _unwritable(s)
    token = _json_token(unwritable) if unwritable else _JSON_TOKEN
    pieces = _pieces(s, token, _json_piece)
    if max_chars is not None:
        pieces = _truncate(pieces, max_chars)
    return _to_text(pieces, None)


def safe_value(value: Any, max_chars: int | None = None) -> Text:
    """A memory value on one line: a string shown bare, anything else as its JSON."""
    if isinstance(value, str):
        return safe(value, one_line=True, max_chars=max_chars)
    return safe_json(value, max_chars=max_chars)


def _json_text(value: Any) -> str:
    """json.dumps(value, ensure_ascii=False); compact and iterative for a value nested too
    deep for the standard encoder (a hostile value must not crash the screen)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except RecursionError:
        return jsonsafe.iterative_dumps(value, default=str)
