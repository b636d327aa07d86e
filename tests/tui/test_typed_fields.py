"""What an operator types into a screen's own fields (as-of, valid-at, the Diff window) is
never markup and never ends the app: a time outside the years 0001-9999 in UTC, or text that
looks like Rich markup, is refused with a notice that shows it literally. The Erasure
screen's preview keeps the focus after its dialog and follows the store."""

from __future__ import annotations

import pytest

from storegen import entry
from test_console import WIDE, append, erase_dialog, is_screen, notices, statics, table, wait_rows
from tuikit import make_app, private_copy, ready, run, until
from inspector.store.append import event_draft


@pytest.mark.parametrize("screen, key, typed, said", [
    ("1", "t", "[/oops]", "as-of: '[/oops]' is not an RFC 3339 time"),
    ("1", "t", "[bold red]x[/bold red]", "as-of: '[bold red]x[/bold red]' is not an RFC 3339 time"),
    ("1", "t", "0001-01-01T00:00:00+23:59",
     "as-of: '0001-01-01T00:00:00+23:59' is no real time whose UTC lies in the years 0001-9999"),
    ("8", "t", "9999-12-31T23:59:59-23:59",
     "'9999-12-31T23:59:59-23:59' is no real time whose UTC lies in the years 0001-9999"),
    ("8", "f", "2025-02-30T00:00:00Z",
     "'2025-02-30T00:00:00Z' is no real time whose UTC lies in the years 0001-9999"),
], ids=["closing-tag", "styling", "as-of-year-0", "diff-to-year-10000", "diff-from-feb-30"])
def test_a_typed_time_that_is_no_time_is_refused_literally(tmp_path, screen, key, typed, said):
    store = private_copy("branch-contamination", tmp_path / "s")

    async def main():
        app = make_app(store)
        async with app.run_test(size=WIDE) as pilot:
            await ready(pilot)
            await pilot.press(screen, key, *typed, "enter")
            await until(pilot, lambda: any(said in n for n in notices(app)), what="the refusal")
            shown = [n for n in app._notifications if said in str(n.message)]
            assert [n.markup for n in shown] == [False]     # drawn literally, never as markup
            assert app.is_running
    run(main())


def test_the_erasure_preview_keeps_the_focus_and_follows_the_store(tmp_path):
    """Escape from the erase dialog leaves the focus on the preview (the next e opens the
    dialog again; it used to type 'e' into the subject field and wipe the preview), and an
    entry about the subject written by another process meanwhile joins the preview."""
    store = private_copy("moved-city", tmp_path / "s")

    async def main():
        app = make_app(store, operator="dana")
        async with app.run_test(size=WIDE) as pilot:
            await ready(pilot)
            await erase_dialog(pilot)
            await pilot.press("escape")
            await until(pilot, is_screen(app, "ErasureScreen"), what="the screen again")
            await until(pilot, lambda: app.focused is not None and app.focused.id == "preview",
                        what="the focus on the preview")
            assert app.screen.query_one("#subject").value == "user:42"
            append(store, event_draft("write", "U9", "agent:1", after=entry(
                "U9", entity="user:42", attribute="phone", value="+49 30 1234", subject="user:42",
                observed_at="2025-05-01T00:00:00Z")))
            await wait_rows(pilot, "#preview", 7)
            assert "U9" in {table(app, "#preview").row_at(i)["memory_id"] for i in range(7)}
            await pilot.press("e")
            await until(pilot, is_screen(app, "EraseModal"), what="the erase dialog again")
            assert "7 entries would be erased" in " ".join(statics(app))
    run(main())


def test_the_erasure_summary_counts_in_the_singular_and_the_plural():
    from types import SimpleNamespace
    from inspector.tui.modals.erase import would_erase
    one = SimpleNamespace(erased=["H14"], redacted_seqs=[14], retained=[])
    many = SimpleNamespace(erased=["H1", "H2"], redacted_seqs=[1, 2, 9], retained=["U3"])
    assert would_erase(one) == ("1 entry would be erased, 1 event body replaced, "
                                "0 retained under legal hold.")
    assert would_erase(many) == ("2 entries would be erased, 3 event bodies replaced, "
                                 "1 retained under legal hold.")


def test_findings_keep_personal_data_without_a_subject_until_it_is_erased():
    """A rejected or quarantined entry still holds its personal data (scan reports it); the
    Findings screen drops other findings once their entry is no longer active or held."""
    from inspector.tui.session import still_to_act_on as _still_to_act_on
    assert [_still_to_act_on("pii.no_subject", s) for s in
            ("active", "held", "quarantined", "rejected", "retracted", "expired", "erased", None)] \
        == [True, True, True, True, True, True, False, False]
    assert [_still_to_act_on("secret.value", s) for s in ("active", "held", "quarantined", "rejected")] \
        == [True, True, False, False]
    # an id that holds personal data stays in the log whatever happens to its entry
    assert [_still_to_act_on("pii.in_id", s) for s in ("active", "quarantined", "erased", None)] \
        == [True, True, True, False]


def test_a_scoped_erasure_screen_previews_nothing_the_erasure_would_contradict(tmp_path):
    """Erasure works on the whole store: under --scope the screen says so instead of a preview
    of the scoped part (which offered e, then was refused, and counted less than the CLI)."""
    store = private_copy("moved-city", tmp_path / "s")

    async def main():
        app = make_app(store, scope="user:42")
        async with app.run_test(size=WIDE) as pilot:
            await ready(pilot)
            await pilot.press("7", *"user:42", "enter")
            pane = app.screen.query_one("#certificate")
            await until(pilot, lambda: "erasure works on the whole store" in str(pane.render()),
                        what="the refusal to preview")
            assert not app.screen.query_one("#preview").display
            assert app.screen.check_action("erase", ()) is not True
    run(main())
