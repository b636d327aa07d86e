"""Every action key of the TUI, pressed in the real app and checked in the log (DESIGN §5, §6,
§9): the op and entries, the typed reason (never a placeholder), the operator as actor, one
batch for the whole action, and each entry's status before and after. Then the keys that
change what a screen shows: c (context), t (as of), s (scan again), v (verify the chain)."""

from __future__ import annotations

import json

import pytest

from tuikit import SIZE, events, make_app, private_copy, ready, run, until
from inspector.store.actions import Request
from inspector.store.load import Store
from inspector.store.registry import ACTIONS, apply, plan
from inspector.tui.screens import screen_classes, specs
from inspector.tui.widgets.virtual_table import VirtualTable

LEGACY = "repo:svc/branch:legacy-v2"
CASCADE = ["M1", "M2", "M3", "M4", "M5", "M6", "M7"]       # M1 and what rests on it


def table(app, selector: str) -> VirtualTable:
    return app.screen.query_one(selector, VirtualTable)


def screen_name(app) -> str:
    return app.screen.__class__.__name__


async def open_dialog(pilot, key: str, dialog: str = "PlanModal") -> None:
    await pilot.press(key)
    await until(pilot, lambda: screen_name(pilot.app) == dialog, what=f"the {dialog} of {key!r}")


async def confirm(pilot, store, n_before: int, n_new: int, *fields: str) -> None:
    """Type each field (enter between them), confirm with ctrl+y, wait for the write."""
    for i, text in enumerate(fields):
        if i:
            await pilot.press("enter")
        await pilot.press(*text)
    await pilot.press("ctrl+y")
    await until(pilot, lambda: len(events(store)) == n_before + n_new and not pilot.app.pending_write
                and screen_name(pilot.app) not in ("PlanModal", "EraseModal"), what="the write")


def written(store, n_before: int) -> list[dict]:
    return events(store)[n_before:]


def assert_one_action(new: list[dict], op: str, ids: list[str], actor: str, reason: str,
                      before: str | None, after: str) -> str:
    """The new events are exactly one action: returns its batch. `before` None: the events
    carry no before-state (an erasure records none)."""
    assert [(e["op"], e["memory_id"]) for e in new] == [(op, i) for i in ids]
    assert {e["actor"] for e in new} == {actor}
    assert {e["body"]["reason"] for e in new} == {reason}
    batches = {e["batch"] for e in new}
    assert len(batches) == 1 and None not in batches
    befores = [e["body"]["before"] and e["body"]["before"]["status"] for e in new]
    assert befores == [before] * len(ids)
    assert [e["body"]["after"]["status"] for e in new] == [after] * len(ids)
    return batches.pop()


def test_every_screen_binds_its_actions_to_the_registry_keys():
    classes = screen_classes()
    for spec in specs():
        keys = {b.action: b.key for b in classes[spec.name].BINDINGS if b.action.startswith("act(")}
        assert keys == {f"act('{n}')": ACTIONS[n].key for n in spec.actions}, spec.name


def test_q_quarantines_the_entry_and_what_rests_on_it(tmp_path):
    store = private_copy("branch-contamination", tmp_path / "store")
    n = len(events(store))

    async def main():
        app = make_app(store, operator="quinn")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("slash", *"timeout_config", "escape")
            await until(pilot, lambda: table(app, "#beliefs").row_count == 2
                        and table(app, "#beliefs").row_at(0) is not None, what="the filter")
            assert table(app, "#beliefs").row_at(0)["memory_id"] == "M1"
            await open_dialog(pilot, "Q")
            assert app.screen.plan.affected == CASCADE
            await confirm(pilot, store, n, 7, "INC-4471 main index without branch")
    run(main())
    assert_one_action(written(store, n), "quarantine", CASCADE, "operator:quinn",
                      "INC-4471 main index without branch", "active", "quarantined")


def test_a_approves_a_held_write(tmp_path):
    store = private_copy("multi-tenant", tmp_path / "store")
    n = len(events(store))

    async def main():
        app = make_app(store, operator="bob")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("2")
            await until(pilot, lambda: table(app, "#held").row_at(0) is not None, what="the queue")
            assert table(app, "#held").row_at(0)["memory_id"] == "T5"
            await open_dialog(pilot, "a")
            await confirm(pilot, store, n, 1, "confirmed with finance FIN-88")
    run(main())
    assert_one_action(written(store, n), "approve", ["T5"], "operator:bob",
                      "confirmed with finance FIN-88", "held", "active")


def test_x_rejects_a_held_write(tmp_path):
    store = private_copy("branch-contamination", tmp_path / "store")
    n = len(events(store))

    async def main():
        app = make_app(store, operator="rita")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("2")
            await until(pilot, lambda: table(app, "#held").row_at(0) is not None, what="the queue")
            await open_dialog(pilot, "x")
            await confirm(pilot, store, n, 1, "planted by a forum post")
    run(main())
    assert_one_action(written(store, n), "reject", ["M11"], "operator:rita", "planted by a forum post",
                      "held", "rejected")


def quarantined_store(tmp_path):
    """branch-contamination with M1 and what rests on it quarantined by operator:alice."""
    root = private_copy("branch-contamination", tmp_path / "store")
    loaded = Store(root, warn=False)
    apply(loaded, plan(loaded, Request("quarantine", "main index without branch", "alice", ("M1",))))
    loaded.close()
    return root


def test_u_releases_to_the_status_before_quarantine(tmp_path):
    store = quarantined_store(tmp_path)
    n = len(events(store))

    async def main():
        app = make_app(store, operator="ursula")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("4")
            await until(pilot, lambda: table(app, "#quarantined").row_count == 7
                        and table(app, "#quarantined").row_at(0) is not None, what="the quarantine")
            first = table(app, "#quarantined").row_at(0)["memory_id"]
            await open_dialog(pilot, "u")
            assert app.screen.plan.affected == [first]
            await confirm(pilot, store, n, 1, "checked: the index was right")
            return first
    first = run(main())
    assert_one_action(written(store, n), "release", [first], "operator:ursula",
                      "checked: the index was right", "quarantined", "active")


def test_r_retracts_from_the_quarantine_with_the_cascade(tmp_path):
    store = quarantined_store(tmp_path)
    n = len(events(store))

    async def main():
        app = make_app(store, operator="rolf")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("4")
            await until(pilot, lambda: table(app, "#quarantined").row_count == 7
                        and table(app, "#quarantined").row_at(0) is not None, what="the quarantine")
            rows = table(app, "#quarantined")
            for _ in range(7):
                if rows.row_at(rows.cursor_row)["memory_id"] == "M1":
                    break
                await pilot.press("down")
            await open_dialog(pilot, "r")
            assert app.screen.plan.affected == CASCADE
            await confirm(pilot, store, n, 7, "wrong branch, for good")
    run(main())
    assert_one_action(written(store, n), "retract", CASCADE, "operator:rolf", "wrong branch, for good",
                      "quarantined", "retracted")


def test_shift_e_expires_a_belief(tmp_path):
    store = private_copy("multi-tenant", tmp_path / "store")
    n = len(events(store))

    async def main():
        app = make_app(store, operator="erin")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await until(pilot, lambda: table(app, "#beliefs").row_at(0) is not None, what="beliefs")
            first = table(app, "#beliefs").row_at(0)["memory_id"]
            await open_dialog(pilot, "E")
            assert app.screen.plan.affected == [first]
            await confirm(pilot, store, n, 1, "stale since the move")
            return first
    first = run(main())
    assert_one_action(written(store, n), "expire", [first], "operator:erin", "stale since the move",
                      "active", "expired")


def certificate(store) -> dict:
    (path,) = list((store / "certificates").iterdir())
    return json.loads(path.read_text())


def test_e_erases_by_id_with_the_typed_reason(tmp_path):
    store = private_copy("branch-contamination", tmp_path / "store")
    n = len(events(store))

    async def main():
        app = make_app(store, operator="dana")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("slash", *"timeout_config", "escape")
            await until(pilot, lambda: table(app, "#beliefs").row_count == 2
                        and table(app, "#beliefs").row_at(0) is not None, what="the filter")
            await open_dialog(pilot, "e", "EraseModal")
            assert app.screen.plan.erased == CASCADE
            await confirm(pilot, store, n, 7, "7", "DSR-3303")          # the number of entries
            await until(pilot, lambda: app.status.chain is not None and not app.status.verifying,
                        what="the chain check after the rewrite")
            assert app.status.chain["ok"] is True
    run(main())
    cert = certificate(store)
    batch = assert_one_action(written(store, n), "erase", CASCADE, "operator:dana", "DSR-3303",
                              None, "erased")
    assert batch == cert["id"] and (cert["reason"], cert["operator"]) == ("DSR-3303", "dana")
    assert cert["erased_ids"] == CASCADE and cert["subject_digest"] is None
    assert all(e["body"] == {"erased": cert["id"]} for e in events(store) if e["memory_id"] in CASCADE
               and e["op"] != "erase")


def test_e_on_the_erasure_screen_erases_a_subject_with_the_typed_reason(tmp_path):
    store = private_copy("moved-city", tmp_path / "store")
    n = len(events(store))
    ids = ["H1", "H2", "H3", "H4", "H5", "H6"]

    async def main():
        app = make_app(store, operator="dana")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("7", *"user:42", "enter")
            await until(pilot, lambda: app.screen.query_one("#preview", VirtualTable).row_count == 6,
                        what="the preview")
            await open_dialog(pilot, "e", "EraseModal")
            await confirm(pilot, store, n, 6, "user:42", "DSR-7")
    run(main())
    cert = certificate(store)
    batch = assert_one_action(written(store, n), "erase", ids, "operator:dana", "DSR-7", None,
                              "erased")
    assert batch == cert["id"] and (cert["reason"], cert["operator"]) == ("DSR-7", "dana")
    assert cert["erased_ids"] == ids and cert["subject_digest"] is not None
    assert b"Seattle" not in (store / "events.jsonl").read_bytes()


# -- the keys that change what a screen shows ------------------------------------------------

def belief_rows(app) -> list[tuple]:
    t = table(app, "#beliefs")
    return [(t.row_at(i)["scope"], t.row_at(i)["memory_id"], json.loads(t.row_at(i)["value"]))
            for i in range(t.row_count)]


def rows_loaded(app) -> bool:
    t = table(app, "#beliefs")
    return all(t.row_at(i) is not None for i in range(t.row_count))


@pytest.mark.parametrize("context, expected", [
    ("tenant:acme/user:42/project:P", [("tenant:acme/user:42/project:P", "L2", "Spanish")]),
    ("tenant:acme/user:42", [("tenant:acme/user:42", "L1", "Chinese")]),    # L3 cites L2, not visible
])
def test_c_sets_the_context_the_beliefs_answer(tmp_path, context, expected):
    store = private_copy("report-language", tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await until(pilot, lambda: table(app, "#beliefs").row_count == 2 and rows_loaded(app))
            await pilot.press("c", *context, "enter")
            await until(pilot, lambda: table(app, "#beliefs").row_count == 1 and rows_loaded(app)
                        and belief_rows(app)[0][0] == context, what="the context's beliefs")
            return belief_rows(app)
    assert run(main()) == expected


def test_t_shows_the_beliefs_as_of_a_time(tmp_path):
    store = private_copy("report-language", tmp_path / "store")
    project = "tenant:acme/user:42/project:P"

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await until(pilot, lambda: table(app, "#beliefs").row_count == 2 and rows_loaded(app))
            now = belief_rows(app)
            await pilot.press("t", *"2025-05-01T00:00:00Z", "enter")     # before L2's update
            await until(pilot, lambda: rows_loaded(app) and belief_rows(app) != now, what="as of")
            return now, belief_rows(app)
    now, then = run(main())
    assert (project, "L2", "Spanish") in now
    assert (project, "L2", "English") in then and (project, "L2", "Spanish") not in then


def test_s_scans_again_and_finds_what_was_written_since(tmp_path):
    from storegen import entry
    from inspector.store.append import LogWriter, event_draft
    from inspector.store.logfile import store_paths
    store = private_copy("multi-tenant", tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("5")
            await until(pilot, lambda: "findings" in app.status.counts, what="the first scan")
            first = app.status.counts["findings"]
            with LogWriter(store_paths(store)) as writer:     # another writer: an active secret
                writer.append([event_draft("write", "K1", "agent:9", after=entry(
                    "K1", entity="svc", attribute="api_key", scope="tenant:acme",
                    value="AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))])
            await until(pilot, lambda: app.status.events == 8, what="the live update")
            await pilot.press("s")
            await until(pilot, lambda: app.status.counts.get("findings", first) > first, what="the scan")
            rows = table(app, "#findings")
            await until(pilot, lambda: all(rows.row_at(i) is not None for i in range(rows.row_count)))
            return [(rows.row_at(i)["rule"], rows.row_at(i)["memory_id"]) for i in range(rows.row_count)]
    assert ("secret.value", "K1") in run(main())


def test_a_scan_stopped_by_a_newer_one_does_not_say_stopped_over_its_result(tmp_path):
    """`s` while a scan runs starts another (the first is cancelled): the first, noticing its
    cancel only after the second has shown its findings, must not overwrite them with "scan
    stopped"."""
    import threading

    from textual.widgets import Static

    from inspector.store import scan
    store = private_copy("multi-tenant", tmp_path / "store")
    second_done, first_gone = threading.Event(), threading.Event()

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            real, calls, set_count = app.session.findings, [], app.set_count

            def findings(rescan, progress, cancelled):
                calls.append(rescan)
                if len(calls) == 1:             # the first scan: cancelled, and late to notice
                    second_done.wait(20)
                    first_gone.set()
                    raise scan.Cancelled()
                return real(rescan, progress, cancelled)

            def counted(name, n):               # the second scan's findings are shown
                set_count(name, n)
                if name == "findings":
                    second_done.set()
            app.session.findings, app.set_count = findings, counted
            await pilot.press("5")
            await until(pilot, lambda: len(calls) == 1, what="the first scan")
            await pilot.press("s")
            await until(pilot, first_gone.is_set, what="the first scan to stop")
            await until(pilot, lambda: "findings" in app.status.counts, what="the second scan")
            await pilot.pause(0.3)
            return str(app.screen.query_one("#scan-status", Static).content)
    status = run(main())
    assert status.strip() == "2 findings: 0 high  2 medium  0 low"


def test_v_verifies_the_chain_again_and_shows_a_tampered_line(tmp_path):
    store = private_copy("refund-window", tmp_path / "store")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            assert app.status.chain["ok"] is True
            await pilot.press("6")
            log = store / "events.jsonl"
            data = log.read_bytes()
            tampered = data.replace(b"policy-2024.pdf", b"policy-2099.pdf", 1)   # same length
            assert tampered != data and len(tampered) == len(data)
            log.write_bytes(tampered)
            await pilot.press("v")
            await until(pilot, lambda: not app.status.verifying and app.status.chain is not None
                        and app.status.chain["ok"] is False, what="the verdict")
            return app.status.chain
    chain = run(main())
    assert chain["first_bad_seq"] == 1 and "body" in chain["problem"]
