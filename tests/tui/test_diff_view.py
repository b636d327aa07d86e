"""The diff view (DESIGN §5a, §9) on the incident sample: two times typed, the changed beliefs
listed by the same core as `inspector diff`, enter opening a change's belief with the events
that made it first, highlighted, and a jump from a cause; the default window (the hour before
the as-of time on screen)."""

from __future__ import annotations

from datetime import datetime, timezone

from tuikit import (SIZE, make_app, other_process, private_copy, ready, run, settle,
                    slow_session_open, until)
from inspector.store import diff
from inspector.store.load import Store
from inspector.tui.widgets.detail import CAUSE, DetailPane
from inspector.tui.widgets.virtual_table import VirtualTable

INCIDENT = "incident-afternoon"


def rows(app) -> list[tuple]:
    return [(r["change"], r["entity"], r["attribute"], r["before_id"], r["after_id"],
             [c["seq"] for c in r["causes"]]) for r in app.screen.rows]


def listed(app, n: int) -> bool:
    table = app.screen.query_one("#changes", VirtualTable)
    return table.row_count == n and table.row_at(n - 1) is not None


async def window(pilot, start: str, end: str) -> None:
    await pilot.press("f", *start, "enter", "t", *end, "enter")


def test_two_times_list_the_changes_and_enter_opens_their_causes(tmp_path):
    store = private_copy(INCIDENT, tmp_path / "store")
    t1 = datetime(2025, 3, 14, 4, 5, tzinfo=timezone.utc)
    t2 = datetime(2025, 3, 14, 4, 10, tzinfo=timezone.utc)
    loaded = Store(store, warn=False)
    core = diff.changes(loaded.con, t1, t2)

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("8")
            await window(pilot, "2025-03-14T04:05:00Z", "2025-03-14T04:10:00Z")
            await settle(pilot, lambda a: listed(a, 5))
            assert rows(app) == [
                ("changed", "svc:payments", "api_endpoint", "P1", "W2", [10]),
                ("started", "svc:payments", "client_config", None, "S1", [9, 10, 16]),
                ("started", "svc:payments", "migration_window", None, "W4", [12]),
                ("changed", "svc:payments", "p95_latency_ms", "L1", "L1", [14, 17]),
                ("changed", "svc:payments", "status", "P3", "W1", [9]),
            ]
            # The same changes and causes as `inspector diff` (one core).
            assert [[c["seq"] for c in change["causes"]] for change in core] == \
                [r[-1] for r in rows(app)]
            assert "5 beliefs changed from 2025-03-14T04:05:00Z to 2025-03-14T04:10:00Z" in \
                str(app.screen.query_one("#diff-status").render())

            await pilot.press("down", "enter")              # client_config: started by S1
            pane = app.screen.query_one(DetailPane)
            await settle(pilot, lambda a: pane.detail is not None and pane.detail.memory_id == "S1"
                         and a.focused is pane and pane.selected_target() is not None)
            assert pane.detail.change == "started: S1"
            assert [c["memory_id"] for c in pane.detail.causes] == ["W1", "W2", "S1"]
            lines = [t.plain for t, _ in pane._blocks]
            at = lines.index("what made the change  started: S1")
            assert [l.split()[0:4] for l in lines[at + 1:at + 4]] == [
                ["▶", "9", "2025-03-14T04:06:02", "write"], ["▶", "10", "2025-03-14T04:06:05", "write"],
                ["▶", "16", "2025-03-14T04:09:30", "write"]]
            # What follows is the entry now, and says so (not the window's judgement).
            assert lines[at + 4] == "the entry now (the window's change is above):"
            assert pane.selected_target() == "W1"          # enter selected the first cause
            history = [t for t, _ in pane._blocks if t.plain.strip().startswith("16 ")]
            assert history and history[-1].style == CAUSE          # highlighted in its history
            await pilot.press("down", "enter")              # jump to the second cause
            await settle(pilot, lambda a: pane.detail is not None and pane.detail.memory_id == "W2")
            assert pane.detail.entry["status"] == "quarantined" and pane.detail.causes == []
    run(main())


def test_the_default_window_is_the_hour_before_the_as_of_time(tmp_path):
    store = private_copy(INCIDENT, tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("t", *"2025-03-14T04:10:00Z", "enter")
            await until(pilot, lambda: app.status.as_of == "2025-03-14T04:10:00Z")
            await settle(pilot)
            await pilot.press("8")
            await settle(pilot, lambda a: listed(a, 7))
            status = str(app.screen.query_one("#diff-status").render())
            assert status.startswith("7 beliefs changed from 2025-03-14T03:10:00Z to "
                                     "2025-03-14T04:10:00Z (the hour before the as-of time on screen)")
            assert {r[0] for r in rows(app)} == {"started"}
    run(main())


def test_a_time_that_is_not_rfc_3339_is_said_and_nothing_changes(tmp_path):
    store = private_copy(INCIDENT, tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("8")
            await settle(pilot)
            await pilot.press("f", *"yesterday", "enter")
            await settle(pilot)
            assert any("'yesterday' is not an RFC 3339 time" in str(n.message)
                       for n in app._notifications)
    run(main())


def test_the_default_window_starts_at_year_1_when_the_hour_before_would_not_exist(tmp_path):
    """An as-of time within an hour of the first instant there is: the window starts at it."""
    store = private_copy(INCIDENT, tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("t", *"0001-01-01T00:30:00Z", "enter")
            await until(pilot, lambda: app.status.as_of == "0001-01-01T00:30:00Z")
            await settle(pilot)
            await pilot.press("8")
            await settle(pilot, lambda a: "changed from" in str(
                a.screen.query_one("#diff-status").render()))
            status = str(app.screen.query_one("#diff-status").render())
            assert status.startswith("0 beliefs changed from 0001-01-01T00:00:00Z to "
                                     "0001-01-01T00:30:00Z (the hour before the as-of time on screen)")
    run(main())


def test_a_window_that_ends_before_it_starts_is_refused_and_the_rows_stay_its_own(tmp_path):
    """`t` set before `f`: the line above said the refusal in the CLI's words (--from, --to)
    and the table kept the last window's rows while the fields named the refused one
    (helper-78). The refusal is a notice in the screen's words; the line, the rows and (once
    the field is left) the field stay the window they are of."""
    from textual.widgets import Input
    store = private_copy(INCIDENT, tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("8")
            await window(pilot, "2025-03-14T04:05:00Z", "2025-03-14T04:10:00Z")
            await settle(pilot, lambda a: listed(a, 5))
            await pilot.press("t", "ctrl+u", *"2025-03-14T04:00:00Z", "enter")
            await settle(pilot)
            notes = [str(n.message) for n in app._notifications]
            assert ("from 2025-03-14T04:05:00Z is after to 2025-03-14T04:00:00Z: give the "
                    "earlier time in f (from); the window is as the line above says") in notes
            assert "5 beliefs changed from 2025-03-14T04:05:00Z to 2025-03-14T04:10:00Z" in \
                str(app.screen.query_one("#diff-status").render())
            assert listed(app, 5)
            await pilot.press("escape")
            await settle(pilot)
            return app.screen.query_one("#to", Input).value
    assert run(main()) == "2025-03-14T04:10:00Z"


def test_the_diff_line_says_how_many_entries_were_erased_in_the_window(tmp_path):
    """helper-78: across an erasure the screen said "0 beliefs changed" and nothing more."""
    store = private_copy("moved-city", tmp_path / "store")
    other_process("erase", str(store), "--subject", "user:42", "--reason", "DSR-1", "--operator",
                  "ana")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("8")
            await pilot.press("f", *"2026-01-01T00:00:00Z", "enter")
            await settle(pilot, lambda a: "beliefs changed from 2026-01-01"
                         in str(a.screen.query_one("#diff-status").render()))
            return str(app.screen.query_one("#diff-status").render())
    status = run(main())
    assert status.startswith("0 beliefs changed from 2026-01-01T00:00:00Z to ")
    assert " · 6 entries erased in it (on neither side) · f from" in status


def test_both_times_typed_in_one_burst_set_the_window(tmp_path):
    """"f", a time, enter, "t", a time, enter in one read (typed ahead, pasted): the keys after
    the first enter went back into the from field ("…04:05:00Zt2025-03-14T04:10:00Z"), the
    window ran to now under a field showing text that was not applied. Each time goes to its
    field and the window is the one typed."""
    from textual import events
    store = private_copy(INCIDENT, tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("8")
            await settle(pilot)
            for key in ["f", *"2025-03-14T04:05:00Z", "enter", "t", *"2025-03-14T04:10:00Z", "enter"]:
                app.post_message(events.Key(key, None if key == "enter" else key))
            await settle(pilot, lambda a: listed(a, 5))
            return ([app.screen.query_one(f"#{name}").value for name in ("from", "to")],
                    str(app.screen.query_one("#diff-status").render()))
    fields, line = run(main())
    assert fields == ["2025-03-14T04:05:00Z", "2025-03-14T04:10:00Z"]
    assert "5 beliefs changed from 2025-03-14T04:05:00Z to 2025-03-14T04:10:00Z" in line


def test_a_window_entered_while_the_store_opens_is_listed_once_it_is_open(tmp_path, monkeypatch):
    """"8", "f", a time, enter typed in the first seconds after the launch: the diff was asked
    of a store not open yet, and the app ended with a traceback ('NoneType' object has no
    attribute 'lock'). The window is listed once the store is open."""
    from textual import events
    store = private_copy(INCIDENT, tmp_path / "store")
    slow_session_open(monkeypatch, 2.0)

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.3)
            for key in ["8", "f", *"2025-03-14T04:05:00Z", "enter", "t", *"2025-03-14T04:10:00Z", "enter"]:
                app.post_message(events.Key(key, None if key == "enter" else key))
            await pilot.pause(0.5)
            assert app.session.store is None
            await ready(pilot)
            await settle(pilot, lambda a: listed(a, 5))
            return str(app.screen.query_one("#diff-status").render())
    assert "5 beliefs changed from 2025-03-14T04:05:00Z to 2025-03-14T04:10:00Z" in run(main())
