"""Whatever stdout is, a command's output is whole or its failure is one line: a stdout whose
encoding cannot hold every code point (ASCII, Latin-1) takes the whole output, with untrusted
text escaped by the sanitizer's grammar and --json still the same document."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from clirun import inspector  # noqa: E402

from inspector.present.text import decode  # noqa: E402

VALUE = "Zürich \\ü 😀"          # a backslash before a code point ASCII cannot write


@pytest.fixture
def store(sample, tmp_path):
    root = sample("branch-contamination")
    feed = tmp_path / "feed.jsonl"
    feed.write_text(json.dumps({"id": "U1", "entity": "user:42", "attribute": "city",
                                "kind": "observation", "source": "system:crm",
                                "observed_at": "2025-01-01T00:00:00Z", "value": VALUE}) + "\n")
    assert inspector("ingest", root, feed).code == 0
    return root


def run_bytes(*args, encoding: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)],
                          capture_output=True, timeout=120,
                          env={**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": encoding})


def test_audit_verify_on_an_ascii_stdout_reports_the_intact_chain(store):
    result = run_bytes("audit", store, "--verify", encoding="ascii")
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode("ascii").splitlines()[:2] == ["chain \\u2713 verified",
                                                              "  events        13"]


def test_show_on_an_ascii_stdout_escapes_what_ascii_lacks_by_the_sanitizer_grammar(store):
    result = run_bytes("show", store, "U1", encoding="ascii")
    assert (result.returncode, result.stderr) == (0, b"")
    header = result.stdout.decode("ascii").splitlines()[0]
    assert header == "user:42 \\xb7 city = Z\\xfcrich \\\\\\xfc \\u{1f600}"
    assert decode(header.split(" = ", 1)[1], one_line=True) == VALUE


def test_show_on_a_latin1_stdout_writes_what_latin1_holds(store):
    result = run_bytes("show", store, "U1", encoding="latin-1")
    assert (result.returncode, result.stderr) == (0, b"")
    header = result.stdout.decode("latin-1").splitlines()[0]
    assert header == "user:42 · city = Zürich \\ü \\u{1f600}"


def test_lineage_on_an_ascii_stdout_shows_its_warning_escaped(store):
    result = run_bytes("lineage", store, "M7", encoding="ascii")
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode("ascii").splitlines()[-1] == (
        "\\u26a0 everything it rests on traces to one independent source")


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_json_on_a_narrow_stdout_is_the_same_document_with_u_escapes(store, encoding):
    narrow = run_bytes("show", store, "U1", "--json", encoding=encoding)
    whole = run_bytes("show", store, "U1", "--json", encoding="utf-8")
    assert (narrow.returncode, narrow.stderr) == (0, b"")
    text = narrow.stdout.decode(encoding)
    assert json.loads(text) == json.loads(whole.stdout.decode("utf-8"))
    assert json.loads(text)["entry"]["value"] == VALUE
    escaped = {"ascii": '"Z\\u00fcrich \\\\\\u00fc \\ud83d\\ude00"',
               "latin-1": '"Zürich \\\\ü \\ud83d\\ude00"'}[encoding]
    assert f'"value": {escaped}' in text


def test_a_json_list_on_an_ascii_stdout_is_the_same_document(store):
    narrow = run_bytes("beliefs", store, "--json", encoding="ascii")
    whole = run_bytes("beliefs", store, "--json", encoding="utf-8")
    assert narrow.returncode == 0 and narrow.stdout.isascii()
    beliefs = json.loads(narrow.stdout)["beliefs"]
    assert beliefs == json.loads(whole.stdout)["beliefs"]
    assert [b["value"] for b in beliefs if b["memory_id"] == "U1"] == [VALUE]
