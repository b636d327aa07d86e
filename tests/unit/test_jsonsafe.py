"""jsonsafe reads every text with Python's parser first and with its iterative parser only when
the text nests deeper than Python's can take: both give one reading, and a shallow text with
many brackets never pays for the slow one. dumps_canonical writes what json.dumps writes, also
for the flat objects it hands to orjson."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from inspector.store import jsonsafe

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 30, 10 ** 30),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=30)


def _deep(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


@settings(max_examples=300, deadline=None)
@given(values)
def test_both_parsers_read_every_text_alike(value):
    text = json.dumps(value, ensure_ascii=False)
    assert jsonsafe._IterativeParser(text).parse() == json.loads(text) == jsonsafe.loads(text)


def test_a_shallow_text_with_many_brackets_is_read_by_pythons_parser(monkeypatch):
    text = json.dumps({"items": [{"n": i, "tags": ["[a]", "{b}"]} for i in range(500)]})
    assert text.count("[") + text.count("{") > 2000

    def never(*_):
        raise AssertionError("the iterative parser was used")

    monkeypatch.setattr(jsonsafe._IterativeParser, "parse", never)
    assert jsonsafe.loads(text)["items"][499] == {"n": 499, "tags": ["[a]", "{b}"]}
    assert jsonsafe.loads_stored(text)["items"][0]["tags"] == ["[a]", "{b}"]


@pytest.mark.parametrize("depth", [5000, 100_000])
def test_a_text_deeper_than_pythons_parser_takes_is_read_iteratively(depth):
    for value in (jsonsafe.loads(_deep(depth).encode()),
                  jsonsafe.loads_stored('{"a": ' + _deep(depth) + "}")["a"]):
        for _ in range(depth):
            assert isinstance(value, list) and len(value) == 1
            value = value[0]
        assert value == 1


@pytest.mark.parametrize("depth", [3, 5000])
def test_a_duplicated_key_is_refused_at_any_depth(depth):
    text = _deep(depth, '{"k": 1, "k": 2}')
    with pytest.raises(jsonsafe.DuplicateKey, match="duplicate key 'k'"):
        jsonsafe.loads(text)


@pytest.mark.parametrize("depth", [3, 5000])
def test_a_text_cut_short_is_refused_at_any_depth(depth):
    with pytest.raises(ValueError):
        jsonsafe.loads(_deep(depth)[:-1])


@pytest.mark.parametrize("depth", [3, 5000])
def test_an_integer_past_pythons_digit_limit_is_named_at_any_depth(depth):
    with pytest.raises(jsonsafe.TooManyDigits, match="^holds an integer of 5,000 digits, past "
                                                     "the 4,300 digits Python reads"):
        jsonsafe.loads(_deep(depth, "9" * 5000).encode())


def _typed(value):
    """The value with every scalar's type (1 and 1.0, 0.0 and -0.0 tell apart)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, repr(value))


def _both(text: str):
    """(the reading of the bytes, which may take orjson's path; the reading of the text, which
    never does), each a typed value or the error's type."""
    out = []
    for data in (text.encode("utf-8", "surrogatepass"), text):
        try:
            out.append(_typed(jsonsafe.loads(data)))
        except ValueError as exc:
            out.append(type(exc).__name__)
    return out


@settings(max_examples=300, deadline=None)
@given(values)
def test_bytes_orjson_writes_back_are_read_as_the_text_is(value):
    import orjson
    try:
        spelt = [orjson.dumps(value).decode()]
    except TypeError:           # an integer beyond 64 bits: orjson does not write it
        spelt = []
    for text in spelt + [json.dumps(value, ensure_ascii=False), json.dumps(value)]:
        first, second = _both(text)
        assert first == second


@pytest.mark.parametrize("text", [
    '{"a":18446744073709551616}', '{"a":-18446744073709551617}', '{"a":9223372036854775807}',
    '{"a":1e-05}', '{"a":0.00001}', '{"a":-0}', '{"a":-0.0}', '{"a":1.5E3}', '{"a":1500.0}',
    '{"a":"\\/"}', '{"a":"\\u00e9"}', '{"a":"é"}', '{"a":1,"a":2}', '{"a":"\\ud800"}',
    '{"a":"\\ud83d\\ude00"}', '{"a":1e999}', '{"a":NaN}', '{"a":Infinity}', ' {"a":1}',
    "[]", "1", '"x"',
])
def test_edge_cases_are_read_alike_by_both_paths(text):
    first, second = _both(text)
    assert first == second


def test_a_large_integer_stays_an_integer():
    assert jsonsafe.loads(b'{"a":18446744073709551616}') == {"a": 18446744073709551616}
    assert type(jsonsafe.loads(b'{"a":18446744073709551616}')["a"]) is int
    with pytest.raises(jsonsafe.DuplicateKey):
        jsonsafe.loads(b'{"a":1,"a":2}')
    with pytest.raises(jsonsafe.NotStrict, match="lone surrogate"):
        jsonsafe.loads(b'{"a":"\\ud800"}')


@pytest.mark.parametrize("depth", [3, 5000])
@pytest.mark.parametrize("text", ["{inner}\u00a0", "{inner}\x0c", "\u2003{inner}", "{inner}\x0b",
                                  "[1.\u0665, {inner}]", "[\u0661, {inner}]", "[1e\u0662, {inner}]"])
def test_only_jsons_whitespace_and_digits_are_taken_at_any_depth(depth, text):
    # Python's own \\s and \\d (and float()) take a no-break space, a form feed or an
    # Arabic-Indic digit; JSON does not, at any depth (found by an outside review).
    whole = text.replace("{inner}", _deep(depth))
    with pytest.raises(ValueError):
        jsonsafe.loads(whole)
    with pytest.raises(ValueError):
        jsonsafe.loads(whole.encode())
    with pytest.raises(ValueError):
        jsonsafe.loads_stored(whole)


# -- dumps_canonical: a flat object is written by orjson, the same bytes as json.dumps ---------

def _python_canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8", "surrogatepass")


def test_every_code_point_is_escaped_as_pythons_json_escapes_it():
    points = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    assert len(points) == 1_112_064
    differ = [p for p in points if jsonsafe.dumps_canonical({"k": p, p: 1})
              != _python_canonical({"k": p, p: 1})]
    assert differ == []


@pytest.mark.parametrize("number", [0, -1, 1, 2**63 - 1, -2**63, 2**64 - 1, 2**64, -2**63 - 1, 10**300])
def test_integers_are_written_with_their_digits_at_and_beyond_64_bits(number):
    assert jsonsafe.dumps_canonical({"seq": number}) == b'{"seq":%d}' % number


@pytest.mark.parametrize("value", [
    {"\uffff": 1, "\U00010000": 2, "a": 3},     # UTF-16 would put the astral key first
    {"b": "\ud800", "a": None},                  # a lone surrogate: json.dumps, surrogatepass
    {"\udfff": 1},
    {1: "a", 2: "b"},                            # keys that are not strings
    {"a": True, "b": False},                     # bool: json.dumps
    {"a": 1.0, "b": 1e16, "c": 1e-5},            # float: json.dumps
    {"a": {"b": 1}, "c": [1, "x"]},              # nested: json.dumps
    {},
])
def test_objects_orjson_must_not_write_are_written_as_pythons_json_writes_them(value):
    assert jsonsafe.dumps_canonical(value) == _python_canonical(value)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(st.text(), st.one_of(st.none(), st.text(), st.integers(), st.booleans(),
                                            st.floats(allow_nan=False), st.lists(st.integers()))))
def test_any_object_is_written_as_pythons_json_writes_it(value):
    assert jsonsafe.dumps_canonical(value) == _python_canonical(value)
