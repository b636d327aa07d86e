"""`z` (revert the last batch applied since the app opened) and the Audit screen's `b` (revert
the batch of the event under the cursor), pressed in the real app on the incident sample and
checked in the log (DESIGN §5, §9): one revert event per entry of the batch, the typed reason,
the operator as actor, a new batch, `reverts` naming the batch undone, the statuses after;
and what cannot be reverted (an erasure), refused with nothing written."""

from __future__ import annotations

import os
import subprocess
import sys

from tuikit import SIZE, events, make_app, private_copy, ready, run, settle, until
from inspector.store.load import Store
from inspector.tui.widgets.virtual_table import VirtualTable

INCIDENT = "incident-afternoon"


def screen_name(app) -> str:
    return app.screen.__class__.__name__


async def confirm(pilot, store, n_before: int, n_new: int, reason: str) -> None:
    """Type the reason once the dialog's reason field has the focus, confirm, wait for the write."""
    await until(pilot, lambda: getattr(pilot.app.focused, "id", None) == "reason",
                what="the reason field")
    await pilot.press(*reason, "ctrl+y")
    await until(pilot, lambda: len(events(store)) == n_before + n_new and not pilot.app.pending_write
                and screen_name(pilot.app) not in ("PlanModal", "Pending"), what="the write")


async def approve_f1(pilot, store, n_before: int) -> dict:
    """From Review, approve F1 (the held write of the incident store): the approve event."""
    await pilot.press("2")                                        # Review: F1 is held
    await settle(pilot, lambda a: a.screen.query_one("#held", VirtualTable).row_at(0) is not None)
    await pilot.press("a")
    await until(pilot, lambda: screen_name(pilot.app) == "PlanModal")
    await confirm(pilot, store, n_before, 1, "looks fine")
    return events(store)[-1]


def statuses(store, ids: list[str]) -> dict[str, str]:
    loaded = Store(store, warn=False)
    return dict(loaded.con.execute("SELECT memory_id, status FROM entries WHERE memory_id = ANY(?)",
                                   [ids]).fetchall())


def assert_revert(new: list[dict], ids: list[str], reverts: str, reason: str, actor: str,
                  before: str, after: str) -> None:
    assert [(e["op"], e["memory_id"]) for e in new] == [("revert", i) for i in ids]
    assert {e["actor"] for e in new} == {actor}
    assert {e["body"]["reason"] for e in new} == {reason}
    assert {e["body"]["reverts"] for e in new} == {reverts}
    batches = {e["batch"] for e in new}
    assert len(batches) == 1 and None not in batches and reverts not in batches
    assert [e["body"]["before"]["status"] for e in new] == [before] * len(ids)
    assert [e["body"]["after"]["status"] for e in new] == [after] * len(ids)


def test_z_reverts_the_batch_just_applied_and_then_has_nothing_left(tmp_path):
    store = private_copy(INCIDENT, tmp_path / "store")
    n = len(events(store))

    async def main():
        app = make_app(store, operator="carol")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            approved = await approve_f1(pilot, store, n)
            assert (approved["op"], approved["memory_id"]) == ("approve", "F1")

            await pilot.press("z")
            await until(pilot, lambda: screen_name(app) == "PlanModal", what="the revert's plan")
            title = str(app.screen.query_one("#plan-title").render())
            assert title == f"Revert 1 entry of batch {approved['batch']} to its state before it?"
            await confirm(pilot, store, n + 1, 1, "approved the wrong one")
            assert_revert(events(store)[n + 1:], ["F1"], approved["batch"], "approved the wrong one",
                          "operator:carol", "active", "held")
            assert app.session.applied == []

            await pilot.press("z")                                # nothing left to revert
            await settle(pilot)
            assert screen_name(app) == "ReviewScreen" and len(events(store)) == n + 2
            # It said "no batch has been applied since the inspector was opened" (helper-62 #9).
            assert any(str(m.message) == (
                "Nothing left to revert: the 1 batch applied here since the inspector was opened "
                f"was reverted already (the last: {approved['batch']}). The Audit screen's b "
                "reverts the batch of any event.") for m in app._notifications), \
                [str(m.message) for m in app._notifications]
    run(main())
    assert statuses(store, ["F1"]) == {"F1": "held"}


def test_z_before_any_action_opens_no_dialog_and_read_only_has_no_z(tmp_path):
    store = private_copy(INCIDENT, tmp_path / "store")
    n = len(events(store))

    async def main(read_only: bool):
        app = make_app(store, read_only=read_only)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("z")
            await settle(pilot)
            assert screen_name(app) == "BeliefsScreen"
            said = [str(m.message) for m in app._notifications]
            assert bool(said) is not read_only          # read-only: z is not even bound
    run(main(False))
    run(main(True))
    assert len(events(store)) == n


def _audit_row(app, seq: int) -> None:
    app.screen.query_one("#log", VirtualTable).move_cursor(seq - 1)


async def audit_log(pilot, events_in_log: int) -> VirtualTable:
    """The Audit screen with every event of the log loaded: its table."""
    await pilot.press("6")
    table = pilot.app.screen.query_one("#log", VirtualTable)
    await settle(pilot, lambda a: table.row_count == events_in_log)
    return table


async def to_seq(pilot, table: VirtualTable, seq: int) -> None:
    """The Audit table's cursor on the event `seq`."""
    _audit_row(pilot.app, seq)
    await settle(pilot, lambda a: (table.row_at(table.cursor_row) or {}).get("seq") == seq)


def test_b_on_the_audit_screen_reverts_the_batch_of_the_event_under_the_cursor(tmp_path):
    store = private_copy(INCIDENT, tmp_path / "store")
    log = events(store)
    n = len(log)
    # alice's approval of H1 at 04:40 (after bob's batch was reverted): put H1 back in the queue.
    approval = next(e for e in log if e["op"] == "approve" and e["actor"] == "operator:alice")

    async def main():
        app = make_app(store, operator="dana")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            table = await audit_log(pilot, n)
            await to_seq(pilot, table, approval["seq"])
            await pilot.press("b")
            await until(pilot, lambda: screen_name(app) == "PlanModal", what="the revert's plan")
            await confirm(pilot, store, n, 1, "H1 needs a second look")
    run(main())
    assert_revert(events(store)[n:], ["H1"], approval["batch"], "H1 needs a second look",
                  "operator:dana", "active", "held")
    assert statuses(store, ["H1"]) == {"H1": "held"}


def test_b_reverts_the_marked_events_batch_not_the_cursors(tmp_path):
    """The key bar says "1 marked": b acts on the marked event's batch, as every action acts
    on the marked rows; events of two batches marked are refused, naming their seqs."""
    store = private_copy(INCIDENT, tmp_path / "store")
    log = events(store)
    n = len(log)
    approval = next(e for e in log if e["op"] == "approve" and e["actor"] == "operator:alice")
    other = next(e for e in log if e["batch"] not in (None, approval["batch"]) and e["op"] != "erase")

    async def main():
        app = make_app(store, operator="dana")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            table = await audit_log(pilot, n)
            for seq in (approval["seq"], other["seq"]):
                await to_seq(pilot, table, seq)
                await pilot.press("space")
            await pilot.press("b")          # two batches marked: refused
            await until(pilot, lambda: any("not all of one batch" in str(m.message)
                                           for m in app._notifications), what="the refusal")
            assert screen_name(app) == "AuditScreen"
            assert any(f"(seq {min(approval['seq'], other['seq'])}, {max(approval['seq'], other['seq'])})"
                       in str(m.message) for m in app._notifications)
            await pilot.press("space")      # the cursor's (other's) event unmarked; approval's stays
            await settle(pilot, lambda a: len(table.marked_rows()) == 1)
            await pilot.press("b")
            await until(pilot, lambda: screen_name(app) == "PlanModal", what="the revert's plan")
            await confirm(pilot, store, n, 1, "H1 needs a second look")
    run(main())
    assert_revert(events(store)[n:], ["H1"], approval["batch"], "H1 needs a second look",
                  "operator:dana", "active", "held")


def test_b_on_an_erasure_is_refused_and_writes_nothing(tmp_path):
    store = private_copy(INCIDENT, tmp_path / "store")
    log = events(store)
    erase = next(e for e in log if e["op"] == "erase")

    async def main():
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            table = await audit_log(pilot, len(log))
            await to_seq(pilot, table, erase["seq"])
            await pilot.press("b")
            await until(pilot, lambda: screen_name(app) == "Pending"
                        and app.screen.refusal is not None, what="the refusal")
            assert app.screen.refusal == (f"batch {erase['batch']} is an erasure, which can never "
                                          "be reverted; nothing written")
            await pilot.press(*"oops", "enter", "escape")
            await settle(pilot)
            assert screen_name(app) == "AuditScreen"
    run(main())
    assert len(events(store)) == len(log)


def test_z_reverts_a_revert_made_with_b_and_then_the_batch_before_it(tmp_path):
    """A revert the operator made with b of a batch not applied here is the last batch applied:
    z reverts it (putting back what it undid), then again the one before. z skipped it and
    offered the reject before it (helper-73 B); a revert of a batch z can revert still takes
    that batch off the list instead (z again goes further back, as lazygit's undo)."""
    store = private_copy("branch-contamination", tmp_path / "store")
    cli = subprocess.run([sys.executable, "-m", "inspector", "quarantine", str(store), "M9",
                          "--no-cascade", "--reason", "cli", "--operator", "bob"],
                         capture_output=True, text=True, env={**os.environ, "COLUMNS": "100"})
    assert cli.returncode == 0, cli.stderr
    quarantine = events(store)[-1]
    assert (quarantine["seq"], quarantine["op"], quarantine["memory_id"]) == (13, "quarantine", "M9")

    async def main():
        app = make_app(store, operator="ana")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("2")
            await settle(pilot, lambda a: a.screen.query_one("#held", VirtualTable).row_at(0) is not None)
            await pilot.press("x")
            await until(pilot, lambda: screen_name(app) == "PlanModal")
            await confirm(pilot, store, 13, 1, "rej")
            reject = events(store)[-1]
            assert (reject["seq"], reject["op"], reject["memory_id"]) == (14, "reject", "M11")
            table = await audit_log(pilot, 14)
            await to_seq(pilot, table, 13)
            await pilot.press("b")
            await until(pilot, lambda: screen_name(app) == "PlanModal", what="b's plan")
            await confirm(pilot, store, 14, 1, "undo bob")
            undo = events(store)[-1]
            assert (undo["seq"], undo["op"], undo["memory_id"]) == (15, "revert", "M9")
            assert app.session.applied == [(reject["batch"], "reject"), (undo["batch"], "revert")]

            await pilot.press("z")
            await until(pilot, lambda: screen_name(app) == "PlanModal", what="z's plan")
            assert str(app.screen.query_one("#plan-title").render()) == \
                f"Revert 1 entry of batch {undo['batch']} to its state before it?"
            await confirm(pilot, store, 15, 1, "bob was right")
            assert_revert(events(store)[15:], ["M9"], undo["batch"], "bob was right",
                          "operator:ana", "active", "quarantined")
            assert app.session.applied == [(reject["batch"], "reject")]

            await pilot.press("z")
            await until(pilot, lambda: screen_name(app) == "PlanModal", what="z's plan again")
            assert str(app.screen.query_one("#plan-title").render()) == \
                f"Revert 1 entry of batch {reject['batch']} to its state before it?"
    run(main())
    assert statuses(store, ["M9", "M11"]) == {"M9": "quarantined", "M11": "rejected"}


def test_z_skips_a_batch_another_process_reverted_and_offers_the_one_before(tmp_path):
    """helper-85: z kept offering the operator's last batch after another process had reverted
    it; every plan was refused (it changed after the batch), so z never reached the batches
    before it. A batch reverted by anyone is skipped (revert events carry body.reverts)."""
    store = private_copy(INCIDENT, tmp_path / "store")
    n = len(events(store))

    async def main():
        app = make_app(store, operator="carol")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            approved = await approve_f1(pilot, store, n)
            await pilot.press("1", "slash", *"owner", "escape")   # Beliefs: P2 alone
            beliefs = app.screen.query_one("#beliefs", VirtualTable)
            await until(pilot, lambda: beliefs.row_count == 1 and beliefs.row_at(0) is not None
                        and beliefs.row_at(0)["memory_id"] == "P2", what="the filter")
            await pilot.press("Q")
            await until(pilot, lambda: screen_name(app) == "PlanModal")
            await confirm(pilot, store, n + 1, 1, "owner in doubt")
            quarantined = events(store)[-1]
            assert [a[0] for a in app.session.applied] == [approved["batch"], quarantined["batch"]]

            done = subprocess.run([sys.executable, "-m", "inspector", "revert", str(store),
                                   quarantined["batch"], "--reason", "not in doubt",
                                   "--operator", "bob"], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            await until(pilot, lambda: app.session.store.state.seq == n + 3, what="the live view")

            await pilot.press("z")
            await until(pilot, lambda: screen_name(app) == "PlanModal", what="the revert's plan")
            title = str(app.screen.query_one("#plan-title").render())
            assert title == f"Revert 1 entry of batch {approved['batch']} to its state before it?"
            assert any(str(m.message).startswith(
                f"1 newer batch applied here was reverted already (by another process or b): "
                f"{quarantined['batch']};") for m in app._notifications)
            await pilot.press("escape")
            await settle(pilot)
            assert app.session.applied == [(approved["batch"], "approve")]
    run(main())
    assert len(events(store)) == n + 3


def test_z_says_there_is_nothing_left_when_another_process_reverted_the_only_batch(tmp_path):
    store = private_copy(INCIDENT, tmp_path / "store")
    n = len(events(store))

    async def main():
        app = make_app(store, operator="carol")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            approved = await approve_f1(pilot, store, n)
            done = subprocess.run([sys.executable, "-m", "inspector", "revert", str(store),
                                   approved["batch"], "--reason", "not fine",
                                   "--operator", "bob"], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            await until(pilot, lambda: app.session.store.state.seq == n + 2, what="the live view")
            await pilot.press("z")
            await settle(pilot)
            assert screen_name(app) == "ReviewScreen"
            assert any(str(m.message).startswith(
                "Nothing left to revert: the 1 batch applied here since the inspector was opened "
                f"was reverted already (the last: {approved['batch']}).")
                for m in app._notifications), [str(m.message) for m in app._notifications]
    run(main())
    assert len(events(store)) == n + 2
