"""A list command's JSON written item by item (jsonout.print_json_list, `beliefs --json`) is the
text the whole document would have been, also for hostile values: so a million-event store's
157,831 beliefs need not sit in memory as one document to be printed."""

from __future__ import annotations

import io
import json
import sys

import pytest

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
