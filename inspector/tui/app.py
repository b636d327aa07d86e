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

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive

from ..store.errors import InspectorError
from ..store.registry import ACTIONS
from ..store.logfile import StorePaths, exposure_warning
from .commands import InspectorCommands
from .keymap import load_config
from .modals.erase import EraseModal
from .modals.plan import PlanModal
from .screens import screen_classes, specs
from .session import Session, apply_action, plan_action
from .spec import Status

LIVE_POLL_S = 0.5
CONFIRMATIONS = {"reason": PlanModal, "subject": EraseModal}   # by Action.confirm


class InspectorApp(App):
    CSS_PATH = "inspector.tcss"
    TITLE = "inspector"
    COMMANDS = App.COMMANDS | {InspectorCommands}
    MODES = screen_classes()
    BINDINGS = [Binding(str(spec.order), f"switch_mode('{spec.name}')", spec.label, show=False,
                        id=f"screen.{spec.name}") for spec in specs()] + [
        Binding("ctrl+q", "quit", "quit", id="app.quit")]

    status: reactive[Status] = reactive(Status, always_update=True)

    def __init__(self, session: Session, config: dict | None = None):
        super().__init__()
        self.session = session
        self.config = load_config() if config is None else config
        self.pending_write = False
        self.generation = 0            # bumped whenever what the screens show may have changed
        self._seen: tuple[int, int] | None = None
        self._live_at = 0.0

    def on_mount(self) -> None:
        if self.config.get("theme"):
            self.theme = self.config["theme"]
        self.set_keymap(self.config.get("keys", {}))
        self.set_status(path=str(self.session.path), scope=self.session.scope,
                        read_only=self.session.read_only, loading="loading the store …",
                        warning=_exposure(self.session.path))
        self.switch_mode("beliefs")
        self._open()

    def set_status(self, **changes) -> None:
        self.status = replace(self.status, **changes)

    def set_count(self, screen: str, count: int) -> None:
        """The number the mode bar shows beside a screen's tab."""
        self.set_status(counts={**self.status.counts, screen: count})

    def open_belief(self, memory_id: str) -> None:
        """Switch to the Beliefs screen and move to `memory_id` (a jump from another screen)."""
        self.switch_mode("beliefs")
        self.screen.call_after_refresh(self.screen.show_entry, memory_id)

    # -- loading and live -----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="store")
    def _open(self) -> None:
        started = time.perf_counter()
        try:
            self.session.open()
            self.session.rebuild_view()
        except InspectorError as error:
            self.call_from_thread(self.exit, message=f"error: {error}", return_code=error.exit_code)
            return
        self.load_seconds = time.perf_counter() - started
        self.call_from_thread(self._after_change)
        self.session.index()
        self.call_from_thread(self.set_interval, LIVE_POLL_S, self._poll)
        self.verify_chain()

    def _after_change(self) -> None:
        self.generation += 1
        self.screen.refresh_bindings()
        self._update_counts()
        screen = self.screen
        if hasattr(screen, "reload"):
            screen.reload()

    @work(thread=True, exclusive=True, group="counts")
    def _update_counts(self) -> None:
        totals, counts = self.session.counts()
        counts = {**self.status.counts, **counts}
        store = self.session.store
        self.call_from_thread(self.set_status, loading=None, head=_short_head(store.head),
                              counts=counts, **totals)

    def _poll(self) -> None:
        try:
            st = os.stat(self.session.store.paths.log)
        except OSError:
            return
        seen = (st.st_ino, st.st_size)
        if self._seen is not None and seen != self._seen and not self.pending_write:
            self._take_live()
        self._seen = seen
        if self.status.live_recent and time.monotonic() - self._live_at > 3:
            self.set_status(live_recent=False)

    @work(thread=True, exclusive=True, group="store")
    def _take_live(self) -> None:
        try:
            added = self.session.store.refresh()
        except InspectorError as error:
            self.call_from_thread(self.notify, str(error), severity="error", timeout=30)
            return
        if added:
            self.session.rebuild_view()
            self._live_at = time.monotonic()
            self.call_from_thread(self.set_status, live_recent=True)
            self.call_from_thread(self._after_change)

    def rebuild_view(self) -> None:
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

    # -- actions (one registry drives the keys of every screen) -------------------------------

    def start_action(self, name: str, ids: list[str], visible, subject: str | None = None) -> None:
        """Plan a registry action on `ids` (or a subject) and open its confirmation."""
        if ACTIONS[name].whole_store and self.session.scope is not None:
            self.notify(f"{name.capitalize()} works on the whole store: open it without --scope "
                        f"to {name}.", severity="error")
            return
        self._plan(name, ids, visible, subject)

    @work(thread=True, exclusive=True, group="plan")
    def _plan(self, name: str, ids: list[str], visible, subject: str | None) -> None:
        try:
            plan = plan_action(self.session, name, ids, subject)
        except InspectorError as error:
            self.call_from_thread(self.notify, str(error), severity="error", timeout=10)
            return
        hidden = len(set(plan.affected) - visible(plan.affected))
        modal = CONFIRMATIONS[plan.action.confirm](plan, hidden)
        self.call_from_thread(self.push_screen, modal,
                              lambda reason: reason is not None and self._write(plan, reason))

    @work(thread=True, exclusive=True, group="write")
    def _write(self, plan, reason: str) -> None:
        """Apply a reviewed plan (the one write path of the TUI), then show what it did."""
        self._pending(True)
        try:
            result = apply_action(self.session, plan, reason)
        except InspectorError as error:
            self.call_from_thread(self.notify, str(error), severity="error", timeout=15)
            return
        finally:
            self._pending(False)
        self.session.last_result = result
        self.session.rebuild_view()
        self.call_from_thread(self.notify, result.done(), timeout=10)
        self.call_from_thread(self._after_change)
        if plan.action.rewrites_log:
            self.verify_chain()

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
