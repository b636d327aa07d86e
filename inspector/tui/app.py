"""The inspector's TUI: wiring only. Screens own their tables and bindings; the session owns
the store. Every DuckDB call runs in a worker thread."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from textual import events, work
from textual._time import get_time
from textual.app import App
from textual.binding import Binding
from textual.command import CommandPalette
from textual.reactive import reactive
from textual.screen import ModalScreen

from ..present.text import render, render_message
from ..store.errors import InspectorError, Refused, Stale
from ..store.registry import ACTIONS
from ..store.logfile import StorePaths, exposure_warning
from .commands import InspectorCommands
from .keymap import load_config
from .keyroute import EscapeBurst, note_handed, rerouted
from .live import log_change, log_identity, rolled_back, shorter_at
from .modals.dialog import ActionDialog, Pending, TypeAhead
from .modals.event import EventModal
from .modals.frequencies import FrequencyModal
from .modals.erase import EraseModal
from .modals.help import HelpScreen
from .modals.plan import PlanModal
from .screens import screen_classes, specs
from .session import Session, apply_action, plan_action
from .spec import Status

LIVE_POLL_S = 0.1          # an os.stat of the log: another process's append is seen within 0.1 s
REWRITE_SETTLE_S = 0.3     # a log that went back is judged again after this (a rewrite finishing)
IGNORED = ("Keys typed while the last action was written were ignored: type them again if you "
           "meant them.")
# Keys typed while a dialog writes were meant for that dialog or the next one, never for the
# table behind: from a key that reaches a writing dialog, every key that follows within this
# many seconds of the one before is dropped, also once the dialog has closed.
TYPED_DURING_WRITE_S = 0.6
# ... but never longer than this after the dialog closed: a key held down (an arrow) is a new
# intent once the operator has seen the result.
DROP_AFTER_CLOSE_S = 2.0
CONFIRMATIONS = {"reason": PlanModal, "subject": EraseModal}   # by Action.confirm


class InspectorApp(App):
    CSS_PATH = "inspector.tcss"
    TITLE = "inspector"
    COMMANDS = App.COMMANDS | {InspectorCommands}
    MODES = screen_classes()
    BINDINGS = [Binding(str(spec.order), f"switch_mode('{spec.name}')", f"go to {spec.label}",
                        show=False, id=f"screen.{spec.name}") for spec in specs()] + [
        Binding("question_mark", "help", "help: the keys of this screen", show=False, id="app.help"),
        Binding(ACTIONS["revert"].key, "revert_last", "revert the last batch applied since the "
                "inspector opened (its plan first)", show=False, id=ACTIONS["revert"].binding_id),
        Binding("q", "quit_key", "quit", show=False, id="app.quit_q"),
        # priority: a dialog (a modal screen) hides the app's other bindings, and ctrl+q quits
        # everywhere (helper-72: it did nothing while a dialog or the help was open)
        Binding("ctrl+q", "quit", "quit", show=False, id="app.quit", priority=True)]

    status: reactive[Status] = reactive(Status, always_update=True)

    def __init__(self, session: Session, config: dict | None = None):
        super().__init__()
        self.session = session
        self.config = load_config() if config is None else config
        self.pending_write = False
        self.generation = 0            # bumped whenever what the screens show may have changed
        self._seen: tuple[int, int] | None = None
        self._taker = None              # the last _take_live worker
        # (seq, hash) the app had seen when the log last went back: once the log holds that
        # event there again, the header says it was put back (helper-65: it kept saying
        # "rolled back to seq 7 (had seen 8)" of a log that held seq 8 again)
        self._went_back: tuple[int, str | None] | None = None
        self._origin = None            # the screen the running action was started from
        self._live_at = 0.0
        self._quiet_until = 0.0        # keys before this (event time) are a write's typeahead
        self._closed_at = 0.0          # when the last writing dialog closed
        self._told_for = 0.0           # the close whose dropped keys the operator was told of
        self._told_during = None       # the writing dialog whose dropped keys they were told of
        self._escape_burst = EscapeBurst()

    def on_mount(self) -> None:
        theme = self.config.get("theme")
        if theme and theme in self.available_themes:
            self.theme = theme
        elif theme:
            # A broken configuration never keeps a store from opening (helper-73: an unknown
            # theme ended the TUI with a traceback).
            self.notify(render_message(f"The configuration's theme {theme!r} is not one of "
                                       f"this inspector's ({', '.join(sorted(self.available_themes))})"
                                       ": the default is used."),
                        severity="warning", timeout=15, markup=False)
        self.set_keymap(self.config.get("keys", {}))
        self.set_status(path=str(self.session.path), scope=self.session.scope,
                        read_only=self.session.read_only, loading="loading the store …",
                        warning=_exposure(self.session.path))
        self.switch_mode("beliefs")
        self._loading_since = time.monotonic()
        self._loading_clock = self.set_interval(1, self._tick_loading)
        self._open()

    def _tick_loading(self) -> None:
        """The seconds a launch has waited, in the header beside what it waits for."""
        if self.status.loading is None:
            self._loading_clock.stop()
            return
        self.set_status(loading_for=int(time.monotonic() - self._loading_since))

    def _whole_read(self, size: int, why: str) -> None:
        """From the loading thread: the log is read whole (no view of it yet, or one that cannot
        be used: why, which the operator is told, e.g. the log was rolled back)."""
        amount = f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{max(1, round(size / 1e6))} MB"
        self.call_from_thread(self.set_status, loading=f"reading the whole log ({amount}) to build "
                              "its view; later launches start from the view …")
        if why:
            self.call_from_thread(self.notify, render(f"Reading the whole log again: {why}.",
                                                      one_line=True),
                                  severity="warning", timeout=15, markup=False)

    def set_status(self, **changes) -> None:
        self.status = replace(self.status, **changes)

    def set_count(self, screen: str, count: int) -> None:
        """The number the mode bar shows beside a screen's tab."""
        self.set_status(counts={**self.status.counts, screen: count})

    def set_stale(self, screen: str, stale: bool) -> None:
        """Whether a screen's count is of an older read of the log (Status.stale)."""
        now = self.status.stale | {screen} if stale else self.status.stale - {screen}
        if now != self.status.stale:
            self.set_status(stale=frozenset(now))

    def set_narrowed(self, screen: str, shown: int | None) -> None:
        """The rows a screen's narrowed table shows (None: it is not narrowed)."""
        narrowed = {**self.status.narrowed}
        if shown is None:
            narrowed.pop(screen, None)
        else:
            narrowed[screen] = shown
        if narrowed != self.status.narrowed:
            self.set_status(narrowed=narrowed)

    def open_belief(self, memory_id: str) -> None:
        """Switch to the Beliefs screen and move to `memory_id` (a jump from another screen)."""
        self.switch_mode("beliefs")
        self.screen.call_after_refresh(self.screen.go_to, memory_id)

    def action_help(self) -> None:
        if hasattr(self.screen, "SPEC"):
            self.push_screen(HelpScreen(self.screen))

    def action_command_palette(self) -> None:
        """ctrl+p: the palette of the screen on top, never over a dialog (or the help): its
        "Go to …" left the dialog open on a screen the operator had left, and a write ending
        under it closed the palette in place of the dialog, which stayed saying "writing …"."""
        if isinstance(self.screen, ModalScreen) and not CommandPalette.is_open(self):
            self.notify("Close the dialog first (esc): the command palette opens over a screen, "
                        "never over a dialog.", severity="warning", timeout=6)
            return
        super().action_command_palette()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "revert_last":
            if self.session.read_only or isinstance(self.screen, ModalScreen):
                return False
            if self.pending_write or self.session.store is None:
                return None
        return True

    def action_revert_last(self) -> None:
        """z: revert the newest batch applied since the app was opened and still standing,
        through its plan."""
        dropped = self.session.drop_reverted()
        if dropped and self.session.applied:
            n = len(dropped)
            self.notify(f"{n} newer batch{'' if n == 1 else 'es'} applied here {'was' if n == 1 else 'were'} "
                        f"reverted already (by another process or b): {', '.join(dropped)}; "
                        "offering the one before.", timeout=8, markup=False)
        if not self.session.applied:
            if self.session.reverted:
                n = len(self.session.reverted)
                self.notify(f"Nothing left to revert: the {n} batch{'' if n == 1 else 'es'} applied "
                            f"here since the inspector was opened {'was' if n == 1 else 'were'} "
                            f"reverted already (the last: {self.session.reverted[-1]}). The Audit "
                            "screen's b reverts the batch of any event.", timeout=8, markup=False)
            else:
                self.notify("Nothing to revert: no batch has been applied since the inspector was "
                            "opened. The Audit screen's b reverts the batch of any event.", timeout=6)
            return
        batch, op = self.session.applied[-1]
        if op == "erase":
            self.session.applied.pop()
            self.notify(f"The last batch applied here, {batch}, is an erasure: an erasure can never "
                        "be reverted. Press z again to revert the batch before it.",
                        severity="warning", timeout=10, markup=False)
            return
        self.start_revert(batch)

    def start_revert(self, batch: str) -> None:
        """The plan dialog of reverting `batch` (z, or b on the Audit screen)."""
        self.start_action("revert", [], set, batch=batch)

    def action_quit_key(self) -> None:
        """q quits (as in lazygit and htop), except while a write is running."""
        if self.pending_write:
            self.notify("A write is running: quit when it is done.", severity="warning")
            return
        self.exit()

    # -- loading and live -----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="store")
    def _open(self) -> None:
        started = time.perf_counter()
        try:
            store = self.session.open(on_whole_read=self._whole_read)
            # Reading the store takes milliseconds once it has a view; judging every entry is
            # what the wait is (12 s on a million events with long values and hot keys).
            self.call_from_thread(self.set_status, loading=f"judging the beliefs of "
                                  f"{store.state.seq:,} events …")
            self.session.open_view()
        except InspectorError as error:
            self.call_from_thread(self.exit, message=f"error: {error}", return_code=error.exit_code)
            return
        self.load_seconds = time.perf_counter() - started
        self.call_from_thread(self._after_change)
        self.session.index()
        self.session.save_snapshot()         # the next launch starts from it
        self.call_from_thread(self.set_interval, LIVE_POLL_S, self._poll)
        self.verify_chain()

    # Whether the last change the screens reload for was another process's (a live take).
    outside_change = False

    _store_generation: int | None = None     # the store's, when the screens last took a change

    def _after_change(self, outside: bool = False) -> None:
        self.outside_change = outside
        self.generation += 1
        generation = self.session.store.generation if self.session.store is not None else None
        if outside and self._store_generation is not None and generation != self._store_generation:
            self._close_what_a_rewrite_outdated()
        self._store_generation = generation
        self.screen.refresh_bindings()
        self._update_counts()
        # The screen under any dialog, not the dialog: the tab counts above it change now, and
        # a table behind that waited for the dialog to close disagreed with them meanwhile.
        screen = next((s for s in reversed(self.screen_stack) if not isinstance(s, ModalScreen)),
                      self.screen)
        if hasattr(screen, "reload"):
            screen.reload()

    def _close_what_a_rewrite_outdated(self) -> None:
        """Another process rewrote the log (an erasure, a log replaced): a dialog on top shows
        what was read before, erased values included (an event view kept showing an erased
        entity and value until closed: helper-79). It is closed, and a notice says why; a
        dialog whose write is running, or refused for this change, stays (it says what
        happened)."""
        top = self.screen
        if not isinstance(top, (EventModal, FrequencyModal, ActionDialog, Pending)) or \
                getattr(top, "writing", False) or getattr(top, "outdated", False):
            return      # an outdated dialog already says it cannot be confirmed, and why
        top.dismiss(None)
        self.notify("Another process rewrote the log (an erasure, or the log replaced): the "
                    "dialog open on it was closed, since what it showed may be gone. Open it "
                    "again.", severity="warning", timeout=10, markup=False)

    @work(thread=True, exclusive=True, group="counts")
    def _update_counts(self) -> None:
        totals, counts = self.session.counts()
        counts = {**self.status.counts, **counts}
        store = self.session.store
        stale = frozenset({"findings"} if self.session.findings_behind() is not None else ())
        self.call_from_thread(self.set_status, loading=None, head=_short_head(store.head),
                              counts=counts, stale=stale, **totals)

    def _poll(self) -> None:
        try:
            st = os.stat(self.session.store.paths.log)
        except OSError:
            return
        seen = (st.st_ino, st.st_size)
        state = self.session.store.state
        loaded = (state.inode, state.offset + len(state.torn))
        # Against what the store loaded (a change before the first poll counts), once per change
        # a take ran for: a change seen while a write or another take runs, or whose take was
        # cancelled before it ran (a rebuild), is taken by a later poll.
        taking = self._taker is not None and not self._taker.is_finished
        if seen == loaded:
            # What was seen last is what is loaded (the app's own write included): a log cut
            # back later to an earlier size is a change again (helper-64: cut back to before
            # the app's own last write, it matched an older `_seen` and was never taken)
            self._seen = seen
        if seen != loaded and seen != self._seen and not self.pending_write and not taking:
            self._taker = self._take_live(seen)
        if self.status.live_recent and time.monotonic() - self._live_at > 3:
            self.set_status(live_recent=False)

    @work(thread=True, exclusive=True, group="store", exit_on_error=False)
    def _take_live(self, seen: tuple[int, int]) -> None:
        """Load what another process appended; say in the header when the log went back or was
        replaced, or when new lines cannot be loaded (the screens keep what they showed)."""
        self._seen = seen
        store = self.session.store
        state = store.state
        try:
            problem = log_change(store.paths.log, state.seq, state.hash, state.offset, state.inode,
                                 self.session.hash_at)
            # Rewritten in place, the chain kept (another process's erasure): the check the
            # Audit screen shows was of the lines before (helper-75: "0 bodies erased" after
            # six were), so the chain is checked again once the change is taken.
            rewritten = problem is None and state.seq > 0 and \
                (log_identity(store.paths.log) or (None,))[0] != state.inode
            if problem:
                # A log rewritten in place (`cat kept > events.jsonl`) is empty for a moment:
                # judged then, it read "rolled back to seq 0" (helper-64). Judged again once the
                # writer had time to finish.
                time.sleep(REWRITE_SETTLE_S)
                problem = log_change(store.paths.log, state.seq, state.hash, state.offset,
                                     state.inode, self.session.hash_at) or problem
            if problem:
                self._went_back = (state.seq, state.hash)
                self.call_from_thread(self.set_status, log_problem=problem)
            added = store.refresh()
            put_back, went, regrown = False, self._went_back, None
            if went is not None and store.state.seq >= went[0]:
                # that seq holds an event again: the one seen (put back), or another
                put_back = went[1] is not None and self.session.hash_at(went[0]) == went[1]
                self._went_back = None
            elif went is not None:
                # Still shorter than the log seen, but by how much is what was loaded now: a
                # log rewritten in place, judged while still empty (a slow writer), kept saying
                # "rolled back to seq 0" over the 13 events loaded after (CI, stop 59).
                said = shorter_at(problem or self.status.log_problem)
                if said is not None and said != store.state.seq:
                    regrown = rolled_back(store.state.seq, went[0])
        except Exception as error:        # never a crash: the header says what is wrong
            self.call_from_thread(self.set_status, live_error=render_message(str(error)))
            return
        if regrown:
            self.call_from_thread(self.set_status, log_problem=regrown)
        if put_back:
            # Still ✗: what was read meanwhile (and any verify of it) was of the shorter or
            # other log, and the operator is to know that it went back at all.
            said = problem or self.status.log_problem
            self.call_from_thread(self.set_status, log_problem=f"{said}; put back since")
        if self.status.live_error:
            self.call_from_thread(self.set_status, live_error=None)
        if problem:
            self.session.rebuild_view()
            self.call_from_thread(self._after_change, True)
        elif added:
            self.session.take_appended()
            self._live_at = time.monotonic()
            self.call_from_thread(self.set_status, live_recent=True)
            self.call_from_thread(self._after_change, True)
        if rewritten and not problem:
            self.verify_chain()

    def rebuild_view(self) -> None:
        """Build the view the session's spec names; while the store opens, the load builds it
        (a context or as-of time entered in the first second after the launch rebuilt on no
        store, and the app ended with a traceback)."""
        if self.session.store is None:
            return
        self._rebuild()

    @work(thread=True, exclusive=True, group="store")
    def _rebuild(self) -> None:
        self.session.rebuild_view()
        self.call_from_thread(self._after_change)

    @work(thread=True, exclusive=True, group="verify")
    def verify_chain(self) -> None:
        """audit --verify in a child process: hashing a big log must not hold this one's GIL."""
        self.call_from_thread(self.set_status, verifying=True)
        proc = subprocess.run([sys.executable, "-m", "inspector", "audit", str(self.session.path),
                               "--verify", "--json"], capture_output=True, text=True)
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            report = None
        self.session.chain = report
        self.call_from_thread(self.set_status, verifying=False, chain=report)
        if report is not None and not report.get("ok") and report.get("first_bad_seq"):
            self._reread_after_tamper()

    def _reread_after_tamper(self) -> None:
        """The chain is broken at a line the app had read: what it loaded (from the view, or
        from the line before it was edited) may not be the log's. Read the whole log again, so
        that the screens, and the plans of actions, are the log's as it is (helper-64: after
        "chain ✗ at seq 1", Beliefs still showed the old value, and a quarantine wrote it as
        its `before`). `audit --verify` has discarded the view already."""
        try:
            with self.session.store.lock:
                self.session.store.reload()
            self.session.drop_acting_store()
            self.session.rebuild_view()
        except Exception as error:         # never a crash: the header says what is wrong
            self.call_from_thread(self.set_status, live_error=render_message(str(error)))
            return
        self.call_from_thread(self._after_change)

    # Keys read while a screen switched to by its digit is being shown: they are held, then
    # handed on in order once it has its focus (helper-67 #8: "7", then "user:42" in one
    # burst lost every letter; the Erasure screen's subject field had no focus yet).
    _held_keys: list[events.Key] | None = None

    async def action_switch_mode(self, mode: str) -> None:
        if self._held_keys is None:
            self._held_keys = []
        self.switch_mode(mode)
        # Two refreshes: the first mounts the screen (on_mount moves the focus), the second
        # runs after it.
        self.call_after_refresh(self.call_after_refresh, self._release_held_keys)

    def _release_held_keys(self) -> None:
        held, self._held_keys = self._held_keys or [], None
        for event in held:
            self.post_message(events.Key(event.key, event.character))

    async def on_event(self, event: events.Event) -> None:
        if self._held_keys is not None and isinstance(event, events.Key):
            self._held_keys.append(event)       # (also one handed round before the switch)
            return
        if self._escape_burst.taken(self, event):
            return
        if isinstance(event, events.Key) and not event.is_forwarded \
                and isinstance(self.screen, TypeAhead) and self.screen.hold(event):
            return
        note_handed(self, event)
        await super().on_event(event)

    def _on_key(self, event: events.Key) -> None:
        """A key of a burst handed on before the focus moved goes where it would have gone
        typed slowly (keyroute.rerouted).

        A key typed in the same burst as the one that opened a dialog reaches the app after
        the dialog is on top, but from the screen below: it goes to the dialog (its reason, in
        order), never to the bindings (prevent_default: App's own handler, which checks them,
        does not run). Keys typed while a dialog writes, and the rest of their burst after it
        closed, are dropped: typed ahead for a dialog (the next reason, the next action key),
        they must never act on the table ("x spam enter x spam enter" while the first write
        runs would otherwise approve the next row with "a"). Any other key goes on to App's
        handler."""
        top = self.screen
        if rerouted(self, event, max(self._closed_at, self._quiet_until)):
            return
        if isinstance(top, TypeAhead) and getattr(top, "writing", False):
            self._quiet_until = max(self._quiet_until, event.time + TYPED_DURING_WRITE_S)
            if self._told_during is not top:      # once a write: the dialog's fields are off
                self._told_during = top
                self.notify(IGNORED, severity="warning", timeout=6)
        elif not isinstance(top, ModalScreen) and \
                (event.time < self._closed_at or event.time < self._quiet_until):
            event.prevent_default()
            event.stop()
            if self._told_for != self._closed_at:
                self._told_for = self._closed_at
                self.notify(IGNORED, severity="warning", timeout=6)
            self._quiet_until = max(self._quiet_until, min(event.time + TYPED_DURING_WRITE_S,
                                                            self._closed_at + DROP_AFTER_CLOSE_S))
        elif isinstance(top, TypeAhead) and top.stale(event):
            event.prevent_default()
            if not self._escape_burst.kept(self, top, event):
                (top.focused or top)._forward_event(events.Key(event.key, event.character))

    # -- actions (one registry drives the keys of every screen) -------------------------------

    def start_action(self, name: str, ids: list[str], visible, subject: str | None = None,
                     filtered: bool = False, batch: str | None = None) -> None:
        """Open the action's dialog at once (what the operator types next goes into it, never
        to the table), then plan it in a worker: the dialog shows the plan or the refusal."""
        pending = Pending(name, ids, subject, batch)
        self._origin = self.screen
        self.push_screen(pending)
        if ACTIONS[name].whole_store and self.session.scope is not None:
            pending.call_after_refresh(pending.refuse, f"{name} works on the whole store: open it "
                                                       f"without --scope to {name}.")
            return
        self._plan(pending, name, ids, visible, subject, filtered, batch)

    @work(thread=True, exclusive=True, group="plan")
    def _plan(self, pending: Pending, name: str, ids: list[str], visible, subject: str | None,
              filtered: bool, batch: str | None = None) -> None:
        planned_log = log_identity(self.session.store.paths.log)
        try:
            plan = plan_action(self.session, name, ids, subject, batch=batch)
        except InspectorError as error:
            self.call_from_thread(pending.refuse, str(error))
            return
        hidden = len(set(plan.affected) - visible(plan.affected))
        changed = [side["memory_id"] for c in getattr(plan, "belief_changes", ())
                   for side in (c["before"], c["after"]) if side]
        context = {"filtered": filtered, "secret": self.session.secret_ids(changed),
                   "view_time": self._view_time(), "planned_log": planned_log}
        if getattr(plan, "erased", None) is not None:
            # What the erasure takes and keeps, each by id, key and value (masked if secret):
            # the data owner checks them before typing the confirmation.
            context["entries"] = self.session.erasure_rows(plan)
        if name == "approve":
            # Why each was held, in the hold event's own words (an importer's), as the Review
            # table and the pane give it: the plan has only the entries' states.
            context["hold_reasons"] = self.session.hold_reasons(plan.affected)
        self.call_from_thread(self._show_plan, pending, plan, hidden, context)

    def _view_time(self) -> str | None:
        s = self.status
        parts = [f"as of {s.as_of}"] if s.as_of else []
        parts += [f"valid at {s.valid_at}"] if s.valid_at else []
        return ", ".join(parts) or None

    def _show_plan(self, pending: Pending, plan, hidden: int, context: dict) -> None:
        """Put the plan's dialog where the pending one is (if the operator has not closed it),
        with what was typed meanwhile."""
        if self.screen is not pending:
            return
        pending.hand_over(lambda typed: CONFIRMATIONS[plan.action.confirm](
            plan, hidden, typed=typed, **context))

    def apply_plan(self, dialog, plan, reason: str) -> None:
        self._write(dialog, plan, reason)

    @work(thread=True, exclusive=True, group="write")
    def _write(self, dialog, plan, reason: str) -> None:
        """Apply a reviewed plan (the one write path of the TUI); a refusal goes back to the
        dialog, which stays open."""
        self._pending(True)
        try:
            result = apply_action(self.session, plan, reason)
        except InspectorError as error:
            # Refused after the log changed since the plan (an entry another process rejected
            # meanwhile): no reason typed here can mend that, so it is stale, never "correct it".
            stale = isinstance(error, Stale) or (isinstance(error, Refused) and log_identity(
                self.session.store.paths.log) != dialog.context.get("planned_log"))
            message = str(error) if isinstance(error, Stale) or not stale else \
                f"the log changed since this was planned, and the plan made again is refused: {error}"
            self.call_from_thread(dialog.failed, message, stale)
            self._take_what_the_refusal_read()
            return
        finally:
            self._pending(False)
        self.session.last_result = result
        self.session.record(result)
        self.session.take_appended()            # an erasure reloaded the store: a full rebuild
        self.call_from_thread(self._written, dialog, result)
        if plan.action.rewrites_log:
            self.verify_chain()

    def _take_what_the_refusal_read(self) -> None:
        """A write refused because the log changed read the change (the plan made again under
        the store's lock loaded the lines another process wrote): the screens take it now. The
        live tail, which compares the log with what was loaded, sees nothing new after that, so
        the screens kept showing the entries the other operator had erased until some later
        line came (helper-79, two TUIs confirming at once)."""
        if not self.session.view_behind():
            return
        try:
            self.session.take_appended()
        except Exception as error:        # never a crash: the header says what is wrong
            self.call_from_thread(self.set_status, live_error=render_message(str(error)))
            return
        self.call_from_thread(self._after_change, True)

    def _written(self, dialog, result) -> None:
        """The write is done: close the dialog, clear the marks it acted on, say what it did."""
        self._closed_at = get_time()
        if self._told_during is dialog:             # told already, while it wrote
            self._told_for = self._closed_at
        dialog.done(result)
        origin = self._origin
        cleared = origin.clear_marks() if origin is not None else 0
        note = f" · {cleared} {'mark' if cleared == 1 else 'marks'} cleared" if cleared else ""
        self.notify(result.done() + note, timeout=10, markup=False)
        self._after_change()

    def _pending(self, pending: bool) -> None:
        """Worker thread: a write is (no longer) running; actions are disabled meanwhile."""
        self.pending_write = pending
        self.call_from_thread(self.screen.refresh_bindings)


def _short_head(head: str | None) -> str | None:
    if not head:
        return None
    seq, _, digest = head.partition(":")
    return f"{seq}:{digest[:8]}…"


def _exposure(path) -> str | None:
    """The header's warning when others can read the store (before the store has loaded)."""
    try:
        return exposure_warning(StorePaths(Path(path)))
    except OSError:
        return None
