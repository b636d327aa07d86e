"""How the command line prints `--json`: exactly one JSON document on stdout, safe to print.

JSON escapes the C0 controls itself; every other code point the sanitizer escapes (DEL, C1,
bidi controls: `inspector.present.text.DANGEROUS`) is written as a `\\uXXXX` escape too, so a
terminal shown the document acts on none of them. A long list can be written a page at a time
(`print_json_list`): the same text, without the whole list in memory. On a stdout whose
encoding cannot hold a code point (ASCII, Latin-1), that code point is a `\\uXXXX` escape too:
the same document, in what the stream can write.
"""

from __future__ import annotations

import codecs
import json
import math
import re
import sys
from itertools import islice
from typing import Any, Iterable, Mapping

import orjson

from ..present.text import DANGEROUS
from ..store import jsonsafe

# JSON escapes C0 itself; every other code point the sanitizer escapes is escaped here too.
_TERMINAL_UNSAFE = re.compile(f"[{DANGEROUS}]")


def _json_escape(match: re.Match) -> str:
    code = ord(match.group())
    if code > 0xFFFF:
        code -= 0x10000
        return "\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))
    return "\\u%04x" % code


def dumps(document: Any) -> str:
    """JSON text safe to print: these code points can only occur inside strings. A number that
    is not finite (a malformed entry's) is written as the string "NaN", "Infinity" or
    "-Infinity", as protobuf's JSON does: bare, they are not JSON."""
    text = _by_orjson(document)
    if text is None:
        try:
            try:
                text = json.dumps(document, ensure_ascii=False, indent=2, default=str, allow_nan=False)
            except ValueError:     # NaN: as text, in the order and layout of any other document
                text = json.dumps(_nonfinite_as_text(document), ensure_ascii=False, indent=2,
                                  default=str, allow_nan=False)
        except (RecursionError, ValueError):  # nested thousands deep: compact, iterative
            text = jsonsafe.iterative_dumps(document, default=str, nonfinite_as_text=True)
    return _TERMINAL_UNSAFE.sub(_json_escape, text)


def _nonfinite_as_text(value: Any) -> Any:
    """`value` with every number that is not finite as the string JSON would lack for it."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {key: _nonfinite_as_text(child) for key, child in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nonfinite_as_text(child) for child in value]
    return value


_SCALARS = {str, int, bool, type(None)}
_DEPTH = 254            # orjson's own limit; deeper documents are json.dumps's


class _Refused(Exception):
    pass


def _by_orjson(document: Any) -> str | None:
    """The text json.dumps(document, ensure_ascii=False, indent=2, allow_nan=False) gives, from
    orjson, ten times faster than Python's encoder (pure Python once indent is set); or None
    when orjson could write something else. With OPT_INDENT_2 orjson lays out objects and
    arrays as json.dumps does with indent=2, escapes every code point alike (jsonsafe's
    docstring) and writes integers' digits; a float it writes otherwise than `float.__repr__`
    (1e-05 as 0.00001) is handed to it written (`orjson.Fragment`). None for a type other
    than dict, list, tuple, str, int, float, bool and None, or a subclass (json.dumps writes a
    str enum by value, or calls `default`), a key that is not a str, a float not finite,
    nesting deeper than 254, and what orjson refuses itself (TypeError: a lone surrogate, an
    integer beyond 64 bits)."""
    try:
        prepared = _prepared(document, 0)
        return orjson.dumps(prepared, option=orjson.OPT_INDENT_2).decode()
    except (_Refused, TypeError, RecursionError):    # _prepared recurses: json.dumps's fallback
        return None


def _prepared(value: Any, depth: int) -> Any:
    """`value` as orjson must see it: itself, or a copy whose odd floats are Fragments."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is float:
        text = float.__repr__(value).encode()
        if orjson.dumps(value) == text:
            return value
        if not math.isfinite(value):
            raise _Refused
        return orjson.Fragment(text)
    if depth >= _DEPTH:
        raise _Refused
    if kind is dict:
        changed = None
        for key, child in value.items():
            if type(key) is not str:
                raise _Refused
            new = _prepared(child, depth + 1)
            if new is not child:
                changed = changed or dict(value)
                changed[key] = new
        return value if changed is None else changed
    if kind is list or kind is tuple:
        items = [_prepared(child, depth + 1) for child in value]
        return value if all(a is b for a, b in zip(items, value)) else items
    raise _Refused


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _write(out: Any, text: str) -> None:
    """Write JSON text to `out`, each code point its encoding cannot hold as a `\\u` escape
    (JSON's syntax is ASCII, so such a code point is inside a string)."""
    encoding = getattr(out, "encoding", None) or "utf-8"
    if not codecs.lookup(encoding).name.startswith("utf"):
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            text = _NON_ASCII.sub(lambda m: _unwritable_escape(m, encoding), text)
    out.write(text)


def _unwritable_escape(match: re.Match, encoding: str) -> str:
    try:
        match.group().encode(encoding)
    except UnicodeEncodeError:
        return _json_escape(match)
    return match.group()


def print_json(document: Any) -> None:
    _write(sys.stdout, dumps(document) + "\n")


def print_json_list(key: str, items: Iterable[Any], rest: Mapping[str, Any]) -> None:
    """print_json({key: list(items), **rest}) without holding the list: the items are written
    a page of 1,000 at a time, indented as the whole document would indent them (JSON text
    holds no raw line break, so its lines are its structure)."""
    out = sys.stdout
    _write(out, "{\n  " + dumps(key) + ": [")
    empty = True
    for page in _pages(items, 1000):
        text = dumps(page)              # "[\n  {...},\n  {...}\n]", or compact (a NaN: dumps)
        if text.startswith("[\n"):
            body = _indented(text[2:-2], "  ")
        else:
            body = ",\n".join(_indented(dumps(item), "    ") for item in page)
        _write(out, ("\n" if empty else ",\n") + body)
        empty = False
    out.write("]" if empty else "\n  ]")
    tail = dumps(dict(rest))
    _write(out, (",\n" + tail[2:] if rest else "\n}") + "\n")


def _indented(text: str, prefix: str) -> str:
    """`prefix` before every line of `text`."""
    return prefix + text.replace("\n", "\n" + prefix)


def _pages(items: Iterable[Any], size: int) -> Iterable[list]:
    items = iter(items)
    while page := list(islice(items, size)):
        yield page
