"""A list command's JSON written item by item (jsonout.print_json_list, `beliefs --json`) is the
text the whole document would have been, also for hostile values: so a million-event store's
157,831 beliefs need not sit in memory as one document to be printed."""

from __future__ import annotations

import io
import json
import sys

import pytest
from hypothesis import given, settings, strategies as st

from inspector.cli import jsonout

HOSTILE = "\x1b[2J\u202e\u200b\ud800 \"quoted\" \\ back \n new line \u2028"
ROWS = [{"scope": "", "value": {"nested": [1, 2.5, None, True]}, "markers": []},
        {"scope": "tenant:a", "value": HOSTILE, "markers": ["contested"], "empty": {}},
        {"scope": "t", "value": [], "n": 0}]
REST = {"context": None, "as_of": "2030-01-01T00:00:00Z", "rule": "by the rule"}


def written(fn, *args) -> str:
    out, sys.stdout = sys.stdout, io.StringIO()
    try:
        fn(*args)
        return sys.stdout.getvalue()
    finally:
        sys.stdout = out


@pytest.mark.parametrize("rows", [ROWS, ROWS[:1], []], ids=["three", "one", "none"])
@pytest.mark.parametrize("rest", [REST, {}], ids=["rest", "no-rest"])
def test_item_by_item_is_the_whole_document_s_text(rows, rest):
    whole = written(jsonout.print_json, {"beliefs": rows, **rest})
    assert written(jsonout.print_json_list, "beliefs", iter(rows), rest) == whole
    assert json.loads(whole) == json.loads(json.dumps({"beliefs": rows, **rest}))


def test_pages_of_rows_are_the_whole_document_s_text():
    rows = [{"n": n, "value": [HOSTILE, {"k": n}], "markers": []} for n in range(2500)]
    whole = written(jsonout.print_json, {"beliefs": rows, **REST})
    assert written(jsonout.print_json_list, "beliefs", iter(rows), REST) == whole


def test_an_item_json_cannot_write_bare_is_written_compact_and_still_parses():
    rows = [{"value": [1, {"k": 2}]}, {"value": float("nan")}, {"value": 1}]
    text = written(jsonout.print_json_list, "beliefs", iter(rows), REST)
    assert json.loads(text) == {"beliefs": [{"value": [1, {"k": 2}]}, {"value": "NaN"},
                                            {"value": 1}], **REST}
    assert '\n    {\n      "value": [\n        1,' in text      # its page's others stay indented
    assert "\x1b" not in written(jsonout.print_json_list, "beliefs", iter(ROWS), REST)


def test_conflicts_written_page_by_page_are_the_whole_document_s_text(sample):
    """`conflicts --json` writes its rows as it reads them: with pages of one row, the text is
    the whole document's, and every marker of moved-city is there in order."""
    from inspector.store import beliefs as beliefs_mod
    from inspector.store.load import Store

    loaded = Store(sample("moved-city"))
    beliefs_mod.materialize(loaded.con, beliefs_mod.ViewSpec(None, beliefs_mod.Moment.resolve()))
    whole = beliefs_mod.conflicts(loaded.con)
    assert [(c["marker"], c["memory_ids"]) for c in whole] == [
        ("inference_disagrees", ["H1", "H3"]), ("vetoed_newer", ["H1", "H4"])]
    paged = list(beliefs_mod.each_conflict(loaded.con, page_size=1))
    assert paged == whole
    assert written(jsonout.print_json_list, "conflicts", iter(paged), {}) == \
        written(jsonout.print_json, {"conflicts": whole})


# -- orjson writes what json.dumps writes, or leaves the document to it ----------------------

def _python_text(document) -> str:
    """dumps as it was before orjson: Python's encoder, then the terminal escapes."""
    try:
        try:
            text = json.dumps(document, ensure_ascii=False, indent=2, default=str, allow_nan=False)
        except ValueError:       # NaN: the text "NaN", laid out as any other document
            text = json.dumps(_as_text(document), ensure_ascii=False, indent=2, default=str,
                              allow_nan=False)
    except (RecursionError, ValueError):
        from inspector.store import jsonsafe
        text = jsonsafe.iterative_dumps(document, default=str, nonfinite_as_text=True)
    return jsonout._TERMINAL_UNSAFE.sub(jsonout._json_escape, text)


def _as_text(value):
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, dict):
        return {k: _as_text(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_text(v) for v in value]
    return value


def test_a_number_not_finite_keeps_the_documents_order_and_layout():
    # show of a malformed entry (confidence 1e999) came out compact with its keys sorted,
    # unlike every other document and the order docs/cli.md lists
    document = {"entry": {"id": "X2", "confidence": float("inf")}, "events": [], "why": None,
                "malformed": "field", "n": [float("nan"), -float("inf")]}
    assert jsonout.dumps(document) == json.dumps(
        {"entry": {"id": "X2", "confidence": "Infinity"}, "events": [], "why": None,
         "malformed": "field", "n": ["NaN", "-Infinity"]}, indent=2)


class Label(str):
    pass


@pytest.mark.parametrize("document", [
    {"a": 1e-05, "b": 1e-07, "c": 1e16, "d": 0.1 + 0.2, "e": -0.0, "f": 5e-324},   # orjson: 0.00001
    {"big": 2**64, "small": -2**63 - 1, "edge": 2**64 - 1},
    {"s": "\ud800", "k": HOSTILE},
    {1: "int key", "b": None},
    {"t": (1, "x", (2,)), "l": [[], {}, [[]]]},
    {"label": Label("x"), "set": {1}},
    {"nan": float("nan"), "inf": float("inf")},
    "\u2028\x7f\x9b",
    [],
])
def test_a_document_is_written_as_pythons_encoder_writes_it(document):
    assert jsonout.dumps(document) == _python_text(document)


def test_nesting_past_orjsons_limit_is_written_as_pythons_encoder_writes_it():
    for depth in (254, 255, 600, 5000):
        document: list = []
        for _ in range(depth):
            document = [document]
        assert jsonout.dumps(document) == _python_text(document), depth


@settings(max_examples=400, deadline=None)
@given(st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(st.text(max_size=5), inner, max_size=4)),
    max_leaves=25))
def test_any_document_is_written_as_pythons_encoder_writes_it(document):
    assert jsonout.dumps(document) == _python_text(document)


def test_a_document_near_orjsons_depth_deep_in_the_stack_is_written_as_python_writes_it():
    """An outside review: _prepared recurses, so a 253-deep list from a caller 500 frames down
    raised RecursionError, which json.dumps's own path catches (it writes compact)."""
    document: object = 1
    for _ in range(253):
        document = [document]

    def at(n: int) -> str:
        return at(n - 1) if n else jsonout.dumps(document)

    assert at(500) == _python_text(document)
