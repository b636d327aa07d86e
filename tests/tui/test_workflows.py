"""The three jobs, done by keyboard in the real app, asserted on the store (DESIGN §9)."""

from __future__ import annotations

from tuikit import SIZE, events, make_app, private_copy, ready, run, settle, until
from inspector.store import beliefs as B
from inspector.store.load import Store
from inspector.tui.widgets.virtual_table import VirtualTable

LEGACY = "repo:svc/branch:legacy-v2"


def belief_ids(store, context=None) -> dict:
    loaded = Store(store, warn=False)
    B.materialize(loaded.con, B.ViewSpec(context, B.Moment.resolve()))
    return {(r["scope"], r["attribute"]): r["memory_id"] for r in B.all_beliefs(loaded.con)}


def _parse(action: str):
    name, _, rest = action.partition("(")
    return name, tuple(a.strip("'\" ") for a in rest.rstrip(")").split(",") if a)


def table(app, selector="#beliefs") -> VirtualTable:
    return app.screen.query_one(selector, VirtualTable)


def test_triage_filter_lineage_quarantine_with_cascade(tmp_path):
    store = private_copy("branch-contamination", tmp_path / "store")
    assert belief_ids(store)[(LEGACY, "timeout_repair")] == "M7"

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("slash", *"timeout_config", "escape")
            await until(pilot, lambda: table(app).row_count == 2, what="the filter")
            await until(pilot, lambda: table(app).row_at(0) is not None)
            assert [table(app).row_at(i)["memory_id"] for i in range(2)] == ["M1", "M0"]
            pane = app.screen.query_one("#detail")
            await until(pilot, lambda: pane.detail is not None and pane.detail.memory_id == "M1"
                        and pane.detail.lineage_loaded, what="M1's detail")
            await pilot.press("l")                      # the lineage pane takes focus
            assert app.focused.id == "detail"
            await pilot.press("escape", "Q")            # back to the table; quarantine M1
            await until(pilot, lambda: app.screen.__class__.__name__ == "PlanModal", what="the plan")
            assert len(app.screen.plan.affected) == 7 and app.screen.hidden == 6
            await pilot.press(*"main index without branch", "enter")
            await until(pilot, lambda: len(events(store)) == 19 and not app.pending_write, what="apply")
    run(main())
    new = events(store)[12:]
    assert [(e["op"], e["memory_id"]) for e in new] == [("quarantine", f"M{i}") for i in (1, 2, 3, 4, 5, 6, 7)]
    assert {e["batch"] for e in new} != {None} and len({e["batch"] for e in new}) == 1
    assert {(e["actor"], e["body"]["reason"]) for e in new} == {("operator:alice", "main index without branch")}
    after = belief_ids(store)
    assert (LEGACY, "timeout_repair") not in after and (LEGACY, "timeout_config") in after


def test_review_approve_and_reject(tmp_path):
    store = private_copy("branch-contamination", tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("2")
            await until(pilot, lambda: table(app, "#held").row_at(0) is not None, what="the held queue")
            assert table(app, "#held").row_at(0)["memory_id"] == "M11"
            await pilot.press("x")
            await until(pilot, lambda: app.screen.__class__.__name__ == "PlanModal")
            await pilot.press(*"planted by a forum post", "ctrl+y")
            await until(pilot, lambda: len(events(store)) == 13 and not app.pending_write)
            await until(pilot, lambda: table(app, "#held").row_count == 0, what="the queue to empty")
    run(main())
    last = events(store)[-1]
    assert (last["op"], last["memory_id"], last["body"]["after"]["status"]) == ("reject", "M11", "rejected")

    store2 = private_copy("multi-tenant", tmp_path / "store2")

    async def approve():
        app = make_app(store2, operator="bob")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("2")
            await until(pilot, lambda: table(app, "#held").row_at(0) is not None)
            await pilot.press("a")
            await until(pilot, lambda: app.screen.__class__.__name__ == "PlanModal")
            await pilot.press(*"confirmed with finance", "ctrl+y")     # enter is not enough here
            await until(pilot, lambda: len(events(store2)) == 8 and not app.pending_write)
    run(approve())
    last = events(store2)[-1]
    assert (last["op"], last["memory_id"], last["actor"]) == ("approve", "T5", "operator:bob")
    assert belief_ids(store2)[("tenant:acme", "export_policy")] == "T5"


def test_bulk_quarantine_of_marked_rows(tmp_path):
    store = private_copy("multi-tenant", tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await until(pilot, lambda: table(app).row_at(0) is not None)
            await pilot.press("space", "down", "down", "space", "Q")
            await until(pilot, lambda: app.screen.__class__.__name__ == "PlanModal")
            assert app.screen.plan.affected == ["T4", "T6"]
            await pilot.press(*"tenant audit", "enter")
            await until(pilot, lambda: len(events(store)) == 9 and not app.pending_write)
    run(main())
    assert [(e["op"], e["memory_id"]) for e in events(store)[7:]] == [("quarantine", "T4"), ("quarantine", "T6")]


def test_erasure_by_typing_the_subject(tmp_path):
    store = private_copy("moved-city", tmp_path / "store")

    async def main():
        app = make_app(store, operator="dana")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("7", *"user:42", "enter")
            await until(pilot, lambda: app.screen.query_one("#preview", VirtualTable).row_count == 6,
                        what="the preview")
            await pilot.press("e")
            await until(pilot, lambda: app.screen.__class__.__name__ == "EraseModal")
            await pilot.press(*"user:4", "enter", *"DSR-7", "enter")     # a wrong subject: refused
            await settle(pilot)
            assert app.screen.__class__.__name__ == "EraseModal" and not (store / "certificates").exists()
            app.screen.query_one("#confirm-text").value = ""
            app.screen.query_one("#confirm-text").focus()
            await pilot.press(*"user:42", "enter", "enter")
            await until(pilot, lambda: (store / "certificates").exists() and not app.pending_write,
                        what="the erasure")
            await until(pilot, lambda: "certificate" in str(app.screen.query_one("#certificate").render()))
    run(main())
    certificates = list((store / "certificates").iterdir())
    assert len(certificates) == 1
    assert [e["op"] for e in events(store)][-6:] == ["erase"] * 6
    assert b"Seattle" not in (store / "events.jsonl").read_bytes()


def test_read_only_offers_no_actions(tmp_path):
    store = private_copy("multi-tenant", tmp_path / "store")

    async def main():
        app = make_app(store, read_only=True)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("2", "a")
            await settle(pilot)
            assert app.screen.__class__.__name__ == "ReviewScreen"
            assert app.screen.check_action("act", ("approve",)) is False
            shown = {b.binding.action for b in app.screen.active_bindings.values()
                     if app.screen.check_action(*_parse(b.binding.action)) is not False}
            assert not any(a.startswith("act(") for a in shown)
    run(main())
    assert len(events(store)) == 7


def test_read_only_key_bars_and_help_offer_no_marks_and_no_actions(tmp_path):
    """helper-85: every screen's key bar and the help still offered `space mark` read-only,
    and the help said "Every action opens its plan…": marks only choose what an action acts
    on. Now neither the bars nor the help nor the palette's keys offer them, and space marks
    nothing."""
    from inspector.tui.modals.help import key_rows
    from inspector.tui.widgets.keybar import KeyBar
    store = private_copy("branch-contamination", tmp_path / "store")

    async def main():
        app = make_app(store, read_only=True)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            seen = []
            for key in "012345678":
                await pilot.press(key)
                await settle(pilot)
                seen.append(app.screen.SPEC.name)
                bar = str(app.screen.query_one(KeyBar).render())
                offered = [what for _where, rows in key_rows(app.screen) for _k, what in rows]
                assert "space" not in bar and "mark" not in offered, (key, bar, offered)
                assert not any(b.binding.action.startswith(("act(", "revert"))
                               for b in app.screen.active_bindings.values()
                               if b.node.check_action(*_parse(b.binding.action)) is not False)
            await pilot.press("escape", "1", "space")
            await settle(pilot)
            assert app.screen.query_one(KeyBar).marks == 0 and table(app).marked_rows() == []
            await pilot.press("question_mark")
            await settle(pilot)
            said = " ".join(str(w.render()) for w in app.screen.query("Static"))
            assert "The store is open read-only: the actions that write" in said
            assert "Every action opens its plan" not in said
            return seen
    assert len(run(main())) == 9


def test_a_read_only_erasure_preview_does_not_offer_to_erase(tmp_path):
    """It said "Press e to erase", and e did nothing (helper-59, stop 54)."""
    from test_console import erasure_preview, statics
    store = private_copy("moved-city", tmp_path / "store")

    async def main():
        app = make_app(store, read_only=True)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await erasure_preview(pilot)
            return [line for line in statics(app) if "Nothing is erased" in line]
    assert [line.splitlines()[-1] for line in run(main())] == [
        "Nothing is erased: the store is open read-only (open it without --read-only to erase); "
        "escape, then / to search another subject."]


def test_live_lines_from_another_writer_appear(tmp_path):
    from storegen import entry
    from inspector.store.append import LogWriter, event_draft
    from inspector.store.logfile import store_paths
    store = private_copy("multi-tenant", tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await until(pilot, lambda: table(app).row_count == 5)
            await pilot.press("down", "down")
            before = table(app).row_at(table(app).cursor_row)["memory_id"]
            with LogWriter(store_paths(store)) as writer:
                writer.append([event_draft("write", "A0", "agent:9", after=entry(
                    "A0", entity="aaa", attribute="first", value="new", scope="tenant:acme"))])
            await until(pilot, lambda: table(app).row_count == 6, timeout=20, what="the live update")
            await until(pilot, lambda: app.status.events == 8, timeout=20)
            assert table(app).row_at(table(app).cursor_row)["memory_id"] == before
    run(main())


def test_live_lines_reach_the_table_behind_an_open_dialog_with_the_tab_counts(tmp_path):
    """helper-85: with a dialog open (help, a plan), another process's lines changed the tab
    counts at once but the table behind only once the dialog closed: counts and rows
    disagreed on screen. Both move together now."""
    from storegen import entry
    from inspector.store.append import LogWriter, event_draft
    from inspector.store.logfile import store_paths
    store = private_copy("multi-tenant", tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            beliefs = table(app)
            await until(pilot, lambda: beliefs.row_count == 5)
            await pilot.press("question_mark")
            await settle(pilot)
            assert app.screen.__class__.__name__ == "HelpScreen"
            with LogWriter(store_paths(store)) as writer:
                writer.append([event_draft("write", "A0", "agent:9", after=entry(
                    "A0", entity="aaa", attribute="first", value="new", scope="tenant:acme"))])
            await until(pilot, lambda: app.status.counts.get("beliefs") == 6, timeout=20,
                        what="the tab count")
            await until(pilot, lambda: beliefs.row_count == 6, timeout=10, what="the table behind")
            assert app.screen.__class__.__name__ == "HelpScreen"
            await pilot.press("escape")
            await settle(pilot)
            assert beliefs.row_count == 6
    run(main())


def test_enter_on_a_lineage_node_jumps_to_it(tmp_path):
    store = private_copy("branch-contamination", tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("end")                  # M7, the laundered summary
            pane = app.screen.query_one("#detail")
            await until(pilot, lambda: pane.detail is not None and pane.detail.memory_id == "M7"
                        and pane.detail.lineage_loaded, what="M7's detail")
            await pilot.press("l")
            assert pane.selected_target() == "M3"
            await pilot.press("down", "enter")        # M3's own ancestor M2
            await until(pilot, lambda: pane.detail.memory_id == "M2", what="the jump")
            assert table(app).row_at(table(app).cursor_row)["memory_id"] == "M2"
            assert app.focused is table(app)
    run(main())


def test_scope_hides_everything_outside_it(tmp_path):
    store = private_copy("multi-tenant", tmp_path / "store")

    async def main():
        app = make_app(store, scope="tenant:globex")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await until(pilot, lambda: table(app).row_count == 2 and table(app).row_at(1) is not None)
            assert [table(app).row_at(i)["memory_id"] for i in range(2)] == ["T2", "T7"]
            assert app.status.events == 2 and app.status.counts.get("review") == 0
            await pilot.press("Q")                     # planned on the whole store, inside the scope
            await until(pilot, lambda: app.screen.__class__.__name__ == "PlanModal")
            assert app.screen.plan.affected == ["T2"]
            await pilot.press(*"globex review", "enter")
            await until(pilot, lambda: len(events(store)) == 8 and not app.pending_write)
    run(main())
    assert (events(store)[-1]["op"], events(store)[-1]["memory_id"]) == ("quarantine", "T2")


def test_the_header_says_the_wait_is_judging_once_the_store_is_read(tmp_path, monkeypatch):
    """The belief view is what takes long (the store itself is read in milliseconds from its
    view): while it is built, the header names it and the events it judges."""
    import threading

    from inspector.tui.session import Session

    store = private_copy("branch-contamination", tmp_path / "store")
    release = threading.Event()
    build = Session.rebuild_view

    def held_build(self):
        release.wait(30)
        return build(self)

    monkeypatch.setattr(Session, "rebuild_view", held_build)

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: (app.status.loading or "").startswith("judging"),
                        what="the judging note")
            assert app.status.loading == "judging the beliefs of 12 events …"
            release.set()
            await ready(pilot)
            assert app.status.loading is None
    run(main())
