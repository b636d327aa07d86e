"""Entries another writer wrote with `null` where an id or a key belongs (malformed: loaded,
named, never believed) are shown, scanned, traced and acted on without a traceback
(helper-58, stop 54: a `null` citation broke show, scan, lineage and report; a `null`
attribute broke every action whose cascade reached the entry)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from clirun import inspector  # noqa: E402
from storegen import entry, write_store  # noqa: E402

T = "2025-01-01T00:00:0{}Z"


def store(tmp_path, **z1) -> Path:
    return write_store(tmp_path / "s", [
        (T.format(1), "write", entry("A1", entity="user:1", attribute="city", value="Berlin")),
        (T.format(2), "write", entry("Z1", **{"entity": "user:1", "attribute": "note",
                                              "kind": "summary", "source": "agent:x",
                                              "justification": ["A1"], **z1}))])


def test_a_null_citation_is_no_id(tmp_path):
    root = store(tmp_path, justification=["A1", None])
    shown = json.loads(inspector("show", root, "Z1", "--json").stdout)
    assert (shown["malformed"], shown["ancestors"]) == ('field "justification" must be a list of ids', ["A1"])
    lineage = json.loads(inspector("lineage", root, "Z1", "--json").stdout)
    assert (lineage["ancestors"], lineage["dangling"], lineage["cycles"]) == (["A1"], [], [])
    human = inspector("lineage", root, "Z1")
    assert (human.code, "rests on: A1" in human.stdout) == (0, True)
    scan = json.loads(inspector("scan", root, "--json").stdout)
    assert [(f["rule"], f["memory_id"]) for f in scan["findings"]] == [("entry.malformed", "Z1")]
    assert inspector("report", root, "--format", "md").code == 0


def test_an_action_whose_cascade_reaches_an_entry_without_an_attribute(tmp_path):
    root = store(tmp_path, attribute=None)
    result = inspector("quarantine", root, "A1", "--reason", "INC-1", "--json")
    assert result.code == 0, result.stderr
    assert sorted(json.loads(result.stdout)["affected"]) == ["A1", "Z1"]
