"""A command that must read the whole log (no view yet, or one that is not current) says so on
a terminal before the wait, and why; a warm command, or one whose stderr is not a terminal,
says nothing. Whenever a view was there and could not be used, terminal or not, it says why
after, in the one line docs/format.md shows."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from inspector.cli import common

sys.path.insert(0, str(Path(__file__).parent))
from clirun import inspector  # noqa: E402


@pytest.fixture
def terminal(monkeypatch, capsys):
    monkeypatch.setattr(common, "ANNOUNCE_BYTES", 0)
    monkeypatch.setattr(common, "_stderr_is_terminal", lambda: True)

    def opened(root) -> str:
        common.open_store(root).close()
        return capsys.readouterr().err
    return opened


def test_a_first_read_says_there_is_no_view_yet_and_a_warm_one_says_nothing(sample, terminal):
    root = sample("branch-contamination")
    size = os.path.getsize(root / "events.jsonl")
    assert terminal(root) == (f"note: reading the whole log ({size / 1e9:.1f} GB): no view of it "
                              "yet; this takes a while\n")
    assert (root / ".inspector" / "view.duckdb").is_file()
    assert terminal(root) == ""


def test_a_replaced_log_is_read_whole_and_the_note_says_why(sample, terminal):
    root = sample("branch-contamination")
    terminal(root)
    log = root / "events.jsonl"
    shutil.copy2(log, root / "copy.jsonl")
    os.replace(root / "copy.jsonl", log)             # same bytes, another file
    assert terminal(root) == (
        "note: reading the whole log (0.0 GB): the log was replaced (an erasure, a restore or "
        "another copy); this takes a while\n"
        f"{root}: read the whole log again: the log was replaced (an erasure, a restore or "
        "another copy)\n")


def test_nothing_is_said_when_stderr_is_not_a_terminal_or_the_log_is_small(
        sample, monkeypatch, capsys):
    root = sample("branch-contamination")
    monkeypatch.setattr(common, "ANNOUNCE_BYTES", 0)
    common.open_store(root).close()                  # capsys's stderr is no terminal
    assert capsys.readouterr().err == ""
    shutil.rmtree(root / ".inspector")
    monkeypatch.setattr(common, "_stderr_is_terminal", lambda: True)
    monkeypatch.setattr(common, "ANNOUNCE_BYTES", os.path.getsize(root / "events.jsonl") + 1)
    common.open_store(root).close()
    assert capsys.readouterr().err == ""


# -- the line format.md promises whenever the view cannot be used, terminal or not ----------

REPLACED = "the log was replaced (an erasure, a restore or another copy)"


def test_a_replaced_log_says_once_on_stderr_why_it_was_read_whole(sample):
    root = sample("branch-contamination")
    warm = inspector("held", root, subprocess_run=True)
    log = root / "events.jsonl"
    shutil.copy2(log, root / "copy.jsonl")
    os.replace(root / "copy.jsonl", log)
    again = inspector("held", root, subprocess_run=True)
    assert (again.code, again.stdout, again.stderr) == (
        0, warm.stdout, f"{root}: read the whole log again: {REPLACED}\n")
    assert inspector("held", root, subprocess_run=True).stderr == ""    # the new view is current


def test_with_json_the_reason_is_on_stderr_and_stdout_stays_one_document(sample):
    root = sample("branch-contamination")
    inspector("held", root, subprocess_run=True)
    (root / ".inspector" / "view.duckdb").write_text("garbage\n")
    result = inspector("held", root, "--json", subprocess_run=True)
    assert (result.code, len(json.loads(result.stdout)["held"])) == (0, 1)
    prefix = f"{root}: read the whole log again: the view could not be opened ("
    assert result.stderr.startswith(prefix) and result.stderr.endswith(")\n")
    assert result.stderr.count("\n") == 1


def test_the_reason_escapes_what_it_names(sample, tmp_path):
    root = tmp_path / "s\x1b]52;x\x07"
    os.rename(sample("branch-contamination"), root)
    inspector("held", root, subprocess_run=True)
    log = root / "events.jsonl"
    shutil.copy2(log, root / "copy.jsonl")
    os.replace(root / "copy.jsonl", log)
    result = inspector("held", root, subprocess_run=True)
    shown = str(root).replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    assert (result.code, result.stderr) == (0, f"{shown}: read the whole log again: {REPLACED}\n")


# -- a view whose blocks are damaged (a disk fault, a stray write) --------------------------

def damaged_store(tmp_path, monkeypatch) -> tuple[Path, list]:
    """A store of 300 entries with its view; then 4 KiB of the view's second block overwritten
    (a block every command reads: helper-58's case). Returns the store and `beliefs --json`
    from the sound view."""
    root, feed = tmp_path / "s", tmp_path / "feed.jsonl"
    feed.write_text("".join(json.dumps({
        "id": f"E{i}", "entity": f"user:{i % 20}", "attribute": f"attr{i % 7}",
        "value": f"value number {i}", "kind": "observation", "source": "tool:t",
        "observed_at": "2025-01-01T00:00:00Z", "subject": f"user:{i % 20}"}) + "\n"
        for i in range(300)))
    # The view as the product writes it (from 64 KiB of log on, at the first read: here,
    # `beliefs`), not as the other tests keep one from the first byte on.
    monkeypatch.setenv("INSPECTOR_VIEW_MIN_BYTES", "65536")
    assert inspector("init", root, subprocess_run=True).code == 0
    assert inspector("ingest", root, feed, subprocess_run=True).code == 0
    sound = beliefs(inspector("beliefs", root, "--json", subprocess_run=True).stdout)
    view = root / ".inspector" / "view.duckdb"
    assert view.stat().st_size > 80 * 4096 + 4096
    with open(view, "r+b") as f:
        f.seek(80 * 4096)
        f.write(b"\xff" * 4096)
    return root, sound


def beliefs(stdout: str) -> list:
    return json.loads(stdout)["beliefs"]


def test_a_damaged_view_is_deleted_and_the_command_answers_from_the_log(tmp_path, monkeypatch):
    """It was a traceback in every command but `held` (`beliefs`, `show`, `erase` …), until
    someone deleted .inspector by hand (helper-58, stop 54)."""
    root, sound = damaged_store(tmp_path, monkeypatch)
    result = inspector("beliefs", root, subprocess_run=True)    # reads the damaged block
    assert (result.code, result.stdout.splitlines()[-1].split(",")[0]) == (0, "140 beliefs")
    assert result.stderr.startswith(f"{root}: read the whole log again: the view is damaged "
                                    "(Corrupt database file: ")
    assert result.stderr.endswith("); it was deleted\n") and result.stderr.count("\n") == 1
    again = inspector("beliefs", root, "--json", subprocess_run=True)   # from the new view
    assert (again.code, beliefs(again.stdout), again.stderr) == (0, sound, "")
    assert len(sound) == 140


def test_an_erasure_over_a_damaged_view_erases(tmp_path, monkeypatch):
    root, _ = damaged_store(tmp_path, monkeypatch)
    result = inspector("erase", root, "--subject", "user:3", "--reason", "DSR-1", "--json",
                       subprocess_run=True)
    assert result.code == 0, result.stderr
    certificate = json.loads(result.stdout)["certificate"]
    assert certificate["erased_ids"] == sorted(f"E{i}" for i in range(3, 300, 20))
    log = (root / "events.jsonl").read_text()
    assert "value number 3\"" not in log and "value number 283" not in log
