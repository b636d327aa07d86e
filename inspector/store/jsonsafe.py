"""Reading and writing JSON that an attacker wrote, without the Python stack.

`loads` is the one reading of a log line or a feed line, the same the loader applies: a
byte-order mark, a duplicated key or a lone surrogate escape (`\ud800`, which DuckDB's JSON
reader rejects) makes it invalid (ValueError naming it). Non-finite numbers (`Infinity`,
`1e999`) are read: they make an entry malformed, not its line unreadable. Every text is read
by Python's own parser first; one nested deeper than it can take (it raises RecursionError,
its guard against the stack) is read again by an iterative parser, so no input exhausts the
stack. `dumps_canonical` writes the canonical form the hash chain is taken over, also
iteratively for deep values; a lone surrogate is encoded with `surrogatepass`, so a foreign
writer's `\\ud800` never crashes a command. A flat object (a line's header: strings, integers
and nulls) is written by orjson with sorted keys, ten times faster and byte for byte the same:
orjson escapes each code point as Python's json module does with ensure_ascii=False (all
1,112,064 are compared in tests/unit/test_jsonsafe.py), writes a 64-bit integer's digits as
`repr` does, sorts keys by their UTF-8 bytes (the code-point order Python sorts str by), and
raises TypeError where it would write anything else: a lone surrogate, an integer beyond 64
bits, a key that is not a string. Those, and anything nested, bool or float, go to json.dumps.
"""

from __future__ import annotations

import json
import math
import re

import orjson


class NotStrict(ValueError):
    """Valid JSON to a lenient reader, but not a valid line: a byte-order mark, a duplicate
    key, a lone surrogate escape."""


class DuplicateKey(NotStrict):
    pass


class TooManyDigits(NotStrict):
    """An integer longer than Python converts from text (sys.get_int_max_str_digits(), 4300
    by default): json.loads says only ValueError, which read as "not JSON"."""


_INT_LIMIT = re.compile(r"Exceeds the limit \((\d+) digits\) for integer string conversion"
                        r"(?:: value has (\d+) digits)?")


UNREAD = object()       # orjson_reading vouched for nothing


def orjson_reading(data: bytes):
    """The value, when orjson writes back exactly these bytes from what it read; else UNREAD.
    Such bytes are read by the slower path below to the very same value, so it is skipped:
    - a duplicated key, `\\u` escapes (a lone surrogate's among them: orjson refuses it),
      `\\/`, spaces, a byte-order mark, `-0`, `1e5`, `1E3` are all written back otherwise;
    - orjson reads an integer too large for 64 bits as a float, which it writes back with a
      `.` or an exponent: not the integer's bytes;
    - a float written back as it was read is the nearest double to its digits (orjson writes
      the shortest digits that read back as the double), which is what json.loads reads;
    - it refuses Infinity, NaN and values over 1,024 deep.
    About 3 µs for a log line, against 15-20 µs for json.loads with the duplicate-key hook:
    the lines another tool wrote in canonical JSON, beyond the fast grammar of
    `fastline`, are read this way by `audit --verify`, and a cold load's strict scan
    vouches for canonical lines with it (strictscan)."""
    try:
        value = orjson.loads(data)
        return value if orjson.dumps(value) == data else UNREAD
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return UNREAD


def _pairs(pairs: list[tuple[str, object]]) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise DuplicateKey(f"duplicate key {key[:40]!r}")
    return out


def loads(data: str | bytes):
    """The strict reading of one JSON document (see the module docstring)."""
    if isinstance(data, bytes):
        if data.startswith(b"\xef\xbb\xbf"):
            raise NotStrict("starts with a byte-order mark")
        value = orjson_reading(data)
        if value is not UNREAD:
            return value
        data = data.decode("utf-8")
    elif data.startswith("\ufeff"):
        raise NotStrict("starts with a byte-order mark")
    try:
        value = _parse(data, _pairs)
    except ValueError as exc:
        too_long = _too_many_digits(exc)
        if too_long is None:
            raise
        raise too_long from None
    if "\\u" in data and _SURROGATE_ESCAPE.search(data) and _has_lone_surrogate(value):
        raise NotStrict("holds a lone surrogate escape (not valid Unicode)")
    return value


def _too_many_digits(exc: ValueError) -> TooManyDigits | None:
    found = _INT_LIMIT.search(str(exc))
    if found is None:
        return None
    limit, digits = found.groups()
    length = f"of {int(digits):,} digits" if digits else f"of more than {int(limit):,} digits"
    return TooManyDigits(f"holds an integer {length}, past the {int(limit):,} digits Python "
                         "reads (and the store takes integers of 64 bits at most)")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _has_lone_surrogate(value) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def depth(value) -> int:
    """How deeply containers nest in a parsed value (0 for a scalar); iterative."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in item)
    return deepest


_FLAT = (str, int, type(None))     # exact types: no bool, float or subclass (dumps_canonical)


def dumps_canonical(value) -> bytes:
    """canonical(x) = json.dumps(x, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False).encode("utf-8") — the same bytes, for any depth and for lone
    surrogates (encoded with surrogatepass)."""
    if type(value) is dict and all(type(v) in _FLAT for v in value.values()):
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except TypeError:       # a lone surrogate, an integer beyond 64 bits, a key not a str
            pass
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except RecursionError:
        text = iterative_dumps(value)
    return text.encode("utf-8", "surrogatepass")


def iterative_dumps(value, default=None, nonfinite_as_text: bool = False) -> str:
    """Compact JSON with sorted keys, for any depth (`default` converts other types). With
    `nonfinite_as_text`, NaN and ±Infinity are written as the strings "NaN", "Infinity",
    "-Infinity" (valid JSON); without, bare as Python's json module writes them."""
    out: list[str] = []
    encode = json.JSONEncoder(ensure_ascii=False, default=default).encode
    work: list = [value]
    while work:
        item = work.pop()
        if isinstance(item, _Raw):
            out.append(item.text)
        elif isinstance(item, dict):
            parts: list = [_Raw("{")]
            for i, key in enumerate(sorted(item)):
                parts += [_Raw(("," if i else "") + encode(key) + ":"), item[key]]
            parts.append(_Raw("}"))
            work.extend(reversed(parts))
        elif isinstance(item, (list, tuple)):
            parts = [_Raw("[")]
            for i, child in enumerate(item):
                parts += ([_Raw(",")] if i else []) + [child]
            parts.append(_Raw("]"))
            work.extend(reversed(parts))
        elif nonfinite_as_text and isinstance(item, float) and not math.isfinite(item):
            out.append(encode(encode(item)))        # the text json writes, as a JSON string
        else:
            out.append(encode(item))
    return "".join(out)


class _Raw:
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


# JSON's whitespace and digits only: Python's \s and \d also match a no-break space or an
# Arabic-Indic digit (which float() reads), where json.loads refuses them.
_WS = " \t\n\r"
_TOKEN = re.compile(r'[ \t\n\r]*(?:([{}\[\],:])|("(?:[^"\\\x00-\x1f]|\\.)*")|'
                    r'(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)|'
                    r'(true|false|null|NaN|-?Infinity))', re.S)


class _IterativeParser:
    """A JSON parser with an explicit stack, for values too deep for `json.loads`."""

    def __init__(self, text: str):
        self.text, self.pos = text, 0

    def _next(self):
        match = _TOKEN.match(self.text, self.pos)
        if not match:
            rest = self.text[self.pos:].strip(_WS)
            if not rest:
                raise ValueError("unexpected end of JSON")
            raise ValueError(f"not valid JSON at character {self.pos}")
        self.pos = match.end()
        punct, string, number, word = match.groups()
        if punct:
            return ("p", punct)
        if string is not None:
            return ("v", json.loads(string))
        if number is not None:
            return ("v", float(number) if any(c in number for c in ".eE") else int(number))
        return ("v", {"true": True, "false": False, "null": None, "NaN": math.nan,
                      "Infinity": math.inf, "-Infinity": -math.inf}[word])

    def parse(self):
        stack: list = []        # [container, pending key or None, expecting]
        result, done = None, False
        while True:
            kind, token = self._next()
            value, closing = None, False
            if kind == "p" and token in "[{":
                if stack and isinstance(stack[-1][0], dict) and stack[-1][2] in ("first", "key"):
                    raise ValueError("object keys must be strings")
                stack.append([[] if token == "[" else {}, None, "first"])
                continue
            if kind == "p" and token in "]}":
                if not stack or stack[-1][2] not in ("first", "comma_or_end"):
                    raise ValueError(f"unexpected {token!r}")
                container = stack.pop()[0]
                if (token == "]") != isinstance(container, list):
                    raise ValueError(f"mismatched {token!r}")
                value, closing = container, True
            elif kind == "p":
                if not stack:
                    raise ValueError(f"unexpected {token!r}")
                frame = stack[-1]
                if token == "," and frame[2] == "comma_or_end":
                    frame[2] = "key" if isinstance(frame[0], dict) else "value"
                    continue
                if token == ":" and frame[2] == "colon":
                    frame[2] = "value"
                    continue
                raise ValueError(f"unexpected {token!r}")
            else:
                value = token
            if not stack:
                result, done = value, True
                break
            frame = stack[-1]
            container = frame[0]
            if isinstance(container, dict) and frame[2] in ("first", "key") and not closing:
                if not isinstance(value, str):
                    raise ValueError("object keys must be strings")
                if value in container or value == frame[1]:
                    raise DuplicateKey(f"duplicate key {value[:40]!r}")
                frame[1], frame[2] = value, "colon"
                continue
            if frame[2] not in ("first", "value"):
                raise ValueError("a value where a comma or an end was expected")
            if isinstance(container, dict):
                container[frame[1]] = value
            else:
                container.append(value)
            frame[2] = "comma_or_end"
        if done and self.text[self.pos:].strip(_WS):
            raise ValueError("extra data after the JSON value")
        return result


def loads_stored(text: str):
    """A JSON text the tool itself keeps (a state or value in its tables): read leniently
    (an entry the loader kept as malformed may hold Infinity), but never with the stack."""
    return _parse(text, None)


def _parse(text: str, pairs):
    """json.loads(text), or the iterative parser when the text nests deeper than json.loads
    can take. Both read every text alike (tests/unit/test_jsonsafe.py compares them);
    the one that answers is the fast one for all but texts a thousand levels deep. (A count
    of brackets chose the parser before: a shallow list of 200 objects went to the slow one,
    which took 70% of `audit --verify`'s time on a store of such values.)"""
    try:
        return json.loads(text, object_pairs_hook=pairs)
    except RecursionError:
        return _IterativeParser(text).parse()
