"""How the command line prints `--json`: exactly one JSON document on stdout, safe to print.

JSON escapes the C0 controls itself; every other code point the sanitizer escapes (DEL, C1,
bidi controls: `inspector.present.text.DANGEROUS`) is written as a `\\uXXXX` escape too, so a
terminal shown the document acts on none of them. A long list can be written a page at a time
(`print_json_list`): the same text, without the whole list in memory.
"""

from __future__ import annotations

import json
import re
import sys
from itertools import islice
from typing import Any, Iterable, Mapping

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
    try:
        text = json.dumps(document, ensure_ascii=False, indent=2, default=str, allow_nan=False)
    except (RecursionError, ValueError):  # nested thousands deep, or NaN: compact, iterative
        text = jsonsafe.iterative_dumps(document, default=str, nonfinite_as_text=True)
    return _TERMINAL_UNSAFE.sub(_json_escape, text)


def print_json(document: Any) -> None:
    sys.stdout.write(dumps(document) + "\n")


def print_json_list(key: str, items: Iterable[Any], rest: Mapping[str, Any]) -> None:
    """print_json({key: list(items), **rest}) without holding the list: the items are written
    a page of 1,000 at a time, indented as the whole document would indent them (JSON text
    holds no raw line break, so its lines are its structure)."""
    out = sys.stdout
    out.write("{\n  " + dumps(key) + ": [")
    empty = True
    for page in _pages(items, 1000):
        text = dumps(page)              # "[\n  {...},\n  {...}\n]", or compact (a NaN: dumps)
        if text.startswith("[\n"):
            body = _indented(text[2:-2], "  ")
        else:
            body = ",\n".join(_indented(dumps(item), "    ") for item in page)
        out.write(("\n" if empty else ",\n") + body)
        empty = False
    out.write("]" if empty else "\n  ]")
    tail = dumps(dict(rest))
    out.write((",\n" + tail[2:] if rest else "\n}") + "\n")


def _indented(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.split("\n"))


def _pages(items: Iterable[Any], size: int) -> Iterable[list]:
    items = iter(items)
    while page := list(islice(items, size)):
        yield page
