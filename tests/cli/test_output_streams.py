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


# -- a stdout that cannot be written ------------------------------------------------------------

UNWRITABLE = ("error: cannot write to standard output: {why}; the output is lost: give the "
              "command an output it can write to\n")


def run_with_stdout(*args, stdout) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "100"})


def run_with_stdout_closed(*args) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", '"$@" >&-', "sh", sys.executable, "-m", "inspector",
                           *map(str, args)], stderr=subprocess.PIPE, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "100"})


@pytest.mark.parametrize("json_flag", [(), ("--json",)], ids=["human", "json"])
def test_a_closed_stdout_is_one_error_line_and_exit_2(sample, json_flag):
    result = run_with_stdout_closed("held", sample("branch-contamination"), *json_flag)
    assert (result.returncode, result.stderr) == (2, UNWRITABLE.format(why="it is closed"))


def test_a_command_that_writes_nothing_to_stdout_does_not_mind_it_closed(sample, tmp_path):
    feed = tmp_path / "feed.jsonl"
    feed.write_text(json.dumps({"id": "U2", "entity": "e", "attribute": "a", "value": "v",
                                "kind": "observation", "source": "system:crm",
                                "observed_at": "2025-01-01T00:00:00Z"}) + "\n")
    result = run_with_stdout_closed("ingest", sample("branch-contamination"), feed)
    assert (result.returncode, result.stderr) == (
        0, "written 1, held 0, updated 0, unchanged 0, rejected lines 0\n")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [("audit", "--verify"), ("beliefs", "--json")], ids=" ".join)
def test_a_full_disk_is_one_error_line_and_exit_2(sample, args):
    with open("/dev/full", "w") as full:
        result = run_with_stdout(args[0], sample("branch-contamination"), *args[1:], stdout=full)
    assert (result.returncode, result.stderr) == (2, UNWRITABLE.format(why="No space left on device"))


@pytest.mark.parametrize("args", [("audit", "--verify"), ("beliefs", "--json"), ("show", "M7")],
                         ids=" ".join)
def test_a_broken_pipe_ends_quietly_with_the_sigpipe_status(sample, args):
    store = sample("branch-contamination")
    proc = subprocess.Popen([sys.executable, "-m", "inspector", args[0], str(store), *args[1:]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "100"})
    proc.stdout.close()             # the reader is gone before the command writes a byte
    stderr = proc.stderr.read()
    assert (proc.wait(timeout=120), stderr) == (141, "")
