"""A command that must read the whole log (no view yet, or one that is not current) says so on
a terminal before the wait, and why; a warm command, or one whose stderr is not a terminal,
says nothing."""

from __future__ import annotations

import os
import shutil

import pytest

from inspector.cli import common


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
        "another copy); this takes a while\n")


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
