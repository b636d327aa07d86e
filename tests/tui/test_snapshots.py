"""SVG snapshots of every screen and modal at a fixed size, on fixed stores (fixed times and
salts, so the pictures only change when the screens do). Update with --snapshot-update.

Each test copies its store into its own temporary directory and opens it by the relative path
`inspector-snapshots/<name>` from there, so the header shows the same path on every run and no
two runs (or xdist workers) share a directory. Nothing waits a fixed time: each shot waits
until the store is loaded, every worker is done and the screen's own condition holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input

from tuikit import make_app, private_copy, ready, settle
from inspector.store.append import LogWriter, event_draft
from inspector.store.logfile import store_paths

SIZE = (160, 40)
BASE = Path("inspector-snapshots")          # relative to the test's private working directory


@pytest.fixture(autouse=True)
def private_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def store(name: str) -> Path:
    return private_copy(name, BASE / name)


def with_quarantine(name: str) -> Path:
    """A copy of a sample with M1 quarantined at a fixed time (the Quarantine screen shows it)."""
    root = store(name)
    state = json.loads((root / "events.jsonl").read_bytes().splitlines()[2])["body"]["after"]
    draft = event_draft("quarantine", "M1", "operator:alice", before=state,
                        after={**state, "status": "quarantined"}, reason="main index without branch",
                        batch="b-snapshot")
    draft["at"] = "2025-03-01T05:00:00Z"
    draft["body"]["salt"] = "0" * 32                  # a fixed salt: a fixed head hash
    with LogWriter(store_paths(root)) as writer:
        writer.append([draft])
    return root


def no_blink(app) -> None:
    for field in app.screen.query(Input):
        field.cursor_blink = False


def shoot(snap_compare, root: Path, press=(), wait=None) -> bool:
    async def before(pilot):
        await ready(pilot)
        for key in press:
            await pilot.press(key)
            await settle(pilot)
        await settle(pilot, wait)
        no_blink(pilot.app)
        await pilot.pause()
    return snap_compare(make_app(root), terminal_size=SIZE, run_before=before)


def scanned(app) -> bool:
    """The scan is done and its rows are in the table."""
    tables = app.screen.query("#findings")
    return "findings" in app.status.counts and bool(tables) and \
        tables.first().row_count == app.status.counts["findings"]


def screen_is(name):
    return lambda app: app.screen.__class__.__name__ == name


def test_beliefs_with_detail(snap_compare):
    assert shoot(snap_compare, store("branch-contamination"), press=["end"])


def test_beliefs_filtered(snap_compare):
    assert shoot(snap_compare, store("moved-city"), press=["slash", *"home", "escape"])


def test_review(snap_compare):
    assert shoot(snap_compare, store("multi-tenant"), press=["2"])


def test_conflicts(snap_compare):
    assert shoot(snap_compare, store("moved-city"), press=["3"])


def test_quarantine(snap_compare):
    assert shoot(snap_compare, with_quarantine("branch-contamination"), press=["4"])


def test_findings(snap_compare):
    assert shoot(snap_compare, store("branch-contamination"), press=["5"],
                 wait=scanned)


def test_audit(snap_compare):
    assert shoot(snap_compare, store("refund-window"), press=["6"])


def test_erasure_preview(snap_compare):
    assert shoot(snap_compare, store("moved-city"), press=["7", *"user:42", "enter"],
                 wait=lambda app: app.screen.query_one("#preview").row_count == 6)


def test_plan_modal(snap_compare):
    assert shoot(snap_compare, store("branch-contamination"), press=["slash", *"timeout_config", "escape", "Q"],
                 wait=screen_is("PlanModal"))


def test_erase_modal(snap_compare):
    assert shoot(snap_compare, store("moved-city"), press=["7", *"user:42", "enter", "e"],
                 wait=screen_is("EraseModal"))
