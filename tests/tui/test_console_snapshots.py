"""SVG snapshots of Beliefs, Review and Erasure at 80×24, 120×40 and 200×50: the layouts the
console issue asks to fit. Each test opens a private copy under its own tmp dir, by a relative
path (so the header reads the same on every run), and waits on what the screen must show.
Update with --snapshot-update."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from tuikit import make_app, private_copy, ready, settle, until
from inspector.tui.widgets.detail import DetailPane
from inspector.tui.widgets.virtual_table import VirtualTable

SIZES = [(80, 24), (120, 40), (200, 50)]


def rows_shown(app, selector: str, count: int) -> bool:
    table = app.screen.query_one(selector, VirtualTable)
    return table.row_count == count and table.row_at(count - 1) is not None


def detail_of(app, memory_id: str) -> bool:
    pane = app.screen.query_one(DetailPane)
    return pane.detail is not None and pane.detail.memory_id == memory_id and pane.detail.lineage_loaded


def shoot(snap_compare, store, size, press, *conditions) -> bool:
    async def before(pilot):
        await ready(pilot)
        for key in press:
            await pilot.press(key)
        for condition in conditions:
            await until(pilot, lambda: condition(pilot.app))
        # Every worker done, twice in a row (the detail's lineage half may come after the
        # conditions hold and lay the pane out again: a loaded run shot it before, stop 48).
        await settle(pilot, lambda app: all(condition(app) for condition in conditions))
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await pilot.wait_for_scheduled_animations()
    return snap_compare(make_app(store), terminal_size=size, run_before=before)


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A private copy of a sample, opened as ./store from its tmp dir."""
    monkeypatch.chdir(tmp_path)

    def copy(name: str):
        private_copy(name, tmp_path / "store")
        return type(tmp_path)("store")
    return copy


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_beliefs(snap_compare, store, size):
    assert shoot(snap_compare, store("branch-contamination"), size, ["end"],
                 lambda app: rows_shown(app, "#beliefs", 8), lambda app: detail_of(app, "M7"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_review(snap_compare, store, size):
    assert shoot(snap_compare, store("multi-tenant"), size, ["2"],
                 lambda app: rows_shown(app, "#held", 1), lambda app: detail_of(app, "T5"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_erasure(snap_compare, store, size):
    assert shoot(snap_compare, store("moved-city"), size, ["7", *"user:42", "enter"],
                 lambda app: rows_shown(app, "#preview", 6),
                 lambda app: "would be erased" in str(app.screen.query_one("#certificate").render()))
