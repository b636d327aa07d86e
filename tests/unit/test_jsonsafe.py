"""jsonsafe reads every text with Python's parser first and with its iterative parser only when
the text nests deeper than Python's can take: both give one reading, and a shallow text with
many brackets never pays for the slow one."""

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
