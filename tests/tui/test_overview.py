"""The Overview screen (DESIGN §9): its numbers on the incident sample, the narrowing of the
other screens when an item is chosen, the counting that follows appended events without a
rescan, and snapshots at 80×24 and 200×50 (the held queue's age measured from a fixed clock)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from textual.widgets import Input

from tuikit import SIZE, make_app, private_copy, ready, run, settle, until
from inspector.store.load import Store
from inspector.store.model import SOURCE_CLASSES
from inspector.tui import overview as ov
from inspector.tui.screens import overview as screen_module
from inspector.tui.widgets.charts import OverviewChart
from inspector.tui.widgets.virtual_table import VirtualTable

INCIDENT = "incident-afternoon"
NOW = datetime(2025, 3, 14, 9, 0, tzinfo=timezone.utc)


def chart(app) -> OverviewChart:
    return app.screen.query_one(OverviewChart)


def drawn(app) -> bool:
    c = chart(app)
    return c.overview is not None and c.overview.findings is not None


def text_of(app) -> str:
    return "\n".join(line.plain for line in chart(app)._drawing.lines)


def test_the_source_classes_differ_in_their_first_letter():
    assert sorted(ov.CLASS_OF_LETTER.values()) == sorted(SOURCE_CLASSES)
    assert ov.source_class("w") == "web" and ov.source_class(None) == ov.NO_SOURCE


def test_buckets_of_the_ladder_add_up_into_coarser_ones(tmp_path):
    store = Store(private_copy(INCIDENT, tmp_path / "store"), warn=False)
    counts = ov.count_events(store.cursor(), None, store.generation, store.state.seq)
    assert counts.step == 60 and sum(counts.cells.values()) == 47
    drawn_at = ov.timeline(counts, 30)              # 04:00 to 08:40 in 30 columns: 10 minutes
    assert (drawn_at.step, drawn_at.columns) == (600, 29)
    assert {s.name: s.total for s in drawn_at.by_op} == {
        "write": 11, "update": 19, "hold": 4, "approve": 3, "reject": 2, "quarantine": 4,
        "revert": 2, "erase": 2}
    assert {s.name: s.total for s in drawn_at.by_class} == {
        "tool": 25, "web": 13, ov.NO_SOURCE: 4, "agent": 2, "system": 2, "document": 1}
    web = next(s for s in drawn_at.by_class if s.name == "web")
    # The burst at 04:06, the quarantine at 04:18, bob's approval and its revert, the rejection,
    # and at 07:45 another instruction from a web forum.
    assert [(n, c) for n, c in enumerate(web.counts) if c] == [(0, 5), (1, 3), (3, 2), (4, 2), (22, 1)]
    assert ov.age(datetime(2025, 3, 14, 7, 45, 12, tzinfo=timezone.utc), NOW) == "1h 14m"


def test_appended_events_are_counted_without_counting_the_log_again(tmp_path):
    root = private_copy(INCIDENT, tmp_path / "store")
    store = Store(root, warn=False)
    counts = ov.count_events(store.cursor(), None, store.generation, store.state.seq)
    from inspector.store.actions import Request
    from inspector.store.registry import ACTIONS
    request = Request("approve", "looked at it", "alice", ("F1",))
    ACTIONS["approve"].apply(store, ACTIONS["approve"].plan(store, request))
    again = ov.count_events(store.cursor(), counts, store.generation, store.state.seq)
    assert again is counts and again.seq == 48
    assert sum(again.cells.values()) == 48
    assert sum(n for (_, op, _), n in again.cells.items() if op == "approve") == 4


def test_the_overview_shows_the_incident(tmp_path, monkeypatch):
    monkeypatch.setattr(screen_module, "now", lambda: NOW)
    store = private_copy(INCIDENT, tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("0")
            await settle(pilot, drawn)
            found = chart(app).overview
            assert (found.held, found.oldest_held_id) == (1, "F1")
            assert found.quarantined_by_source == [("web:status-mirror.example.net/payments", 3),
                                                   ("agent:ops-7/consolidate", 1)]
            assert found.findings == {"high": 1, "medium": 1, "low": 0}   # W3: rejected, an e-mail, no subject
            text = text_of(app)
            assert "1 write waits · oldest F1, held 2025-03-14 07:45:12 (1h 14m ago)" in text
            assert "EVENTS BY OP  2025-03-14 04:00 → 08:45 UTC · 5min a column" in text
            assert [i.label for i in chart(app).items][:3] == ["write", "update", "hold"]
    run(main())


@pytest.mark.parametrize("kind, value, mode, table, expected, every", [
    ("op", "revert", "audit", "#log", [24, 25], 47),
    ("class", "web", "beliefs", "#beliefs", [], 6),
    ("class", "tool", "beliefs", "#beliefs", ["H1", "L1", "P3"], 6),
    ("severity", "high", "findings", "#findings", ["H1"], 2),
    ("quarantine", "agent:ops-7/consolidate", "quarantine", "#quarantined", ["S1"], 4),
    ("held", None, "review", "#held", ["F1"], 1),
])
def test_choosing_an_item_narrows_the_screen_that_lists_it(tmp_path, kind, value, mode, table,
                                                           expected, every):
    store = private_copy(INCIDENT, tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("0")
            await settle(pilot, drawn)
            items = chart(app).items
            target = next(n for n, i in enumerate(items) if (i.kind, i.value) == (kind, value))
            for _ in range(target):
                await pilot.press("down")
            assert chart(app).current.kind == kind
            await pilot.press("enter")
            await until(pilot, lambda: app.current_mode == mode, what=f"the {mode} screen")
            shown = app.screen.query_one(table, VirtualTable)
            narrowed = None if kind == "held" else {"op": "op", "class": "source_class",
                                                    "severity": "severity", "quarantine": "source"}[kind]
            await settle(pilot, lambda a: (shown.narrow or (None,))[0] == narrowed
                         and shown.row_count == len(expected)
                         and all(shown.row_at(n) is not None for n in range(len(expected))))
            field = "seq" if mode == "audit" else "memory_id"
            assert sorted(shown.row_at(n)[field] for n in range(shown.row_count)) == expected
            if narrowed:
                await pilot.press("escape")          # escape on the table: every row again
                await settle(pilot, lambda a: shown.narrow is None and shown.row_count == every)
    run(main())


def test_choosing_an_item_with_nothing_to_narrow_to_shows_every_row(tmp_path):
    """"(none)" (the erasures' source class) has nothing to narrow Beliefs to: the notice said
    "every row is shown" while Beliefs kept the narrowing chosen before ("web": 0 of 6 rows).
    Every row is shown."""
    store = private_copy(INCIDENT, tmp_path / "store")

    async def choose(pilot, value):
        app = pilot.app
        await pilot.press("0")
        await settle(pilot, drawn)
        target = next(n for n, i in enumerate(chart(app).items) if (i.kind, i.value) == ("class", value))
        await pilot.press(*["up"] * len(chart(app).items), *["down"] * target, "enter")
        await until(pilot, lambda: app.current_mode == "beliefs", what="Beliefs")
        await settle(pilot)
        shown = app.screen.query_one("#beliefs", VirtualTable)
        return shown.narrow, shown.row_count, " 1 Beliefs (6) " in app.screen._compositor.render_strips()[1].text

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            first = await choose(pilot, "web")
            return first, await choose(pilot, None)
    first, then = run(main())
    assert first == (("source_class", "web"), 0, False)
    assert then == (None, 6, True)


def overview_shot(snap_compare, tmp_path, monkeypatch, size) -> bool:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(screen_module, "now", lambda: NOW)
    private_copy(INCIDENT, tmp_path / "store")

    async def before(pilot):
        await ready(pilot)
        await pilot.press("0")
        await settle(pilot, drawn)
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await pilot.wait_for_scheduled_animations()
    return snap_compare(make_app(type(tmp_path)("store")), terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_overview_snapshot(snap_compare, tmp_path, monkeypatch, size):
    assert overview_shot(snap_compare, tmp_path, monkeypatch, size)
