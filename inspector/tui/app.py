"""The inspector's TUI: wiring only. Screens own their tables and bindings; the session owns
the store. Every DuckDB call runs in a worker thread."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive

from ..store.errors import InspectorError
from ..store.logfile import StorePaths, exposure_warning
from .commands import InspectorCommands
from .modals.erase import EraseModal
from .modals.plan import PlanModal
from .screens.audit import AuditScreen
from .screens.beliefs import BeliefsScreen
from .screens.erasure import ErasureScreen
from .screens.findings import FindingsScreen
from .screens.tables import ConflictsScreen, QuarantineScreen, ReviewScreen
from .session import Session, apply_action, apply_erase, plan_action, plan_erase

LIVE_POLL_S = 0.5


class InspectorApp(App):
    CSS_PATH = "inspector.tcss"
    TITLE = "inspector"
    COMMANDS = App.COMMANDS | {InspectorCommands}
    MODES = {"beliefs": BeliefsScreen, "review": ReviewScreen, "conflicts": ConflictsScreen,
             "quarantine": QuarantineScreen, "findings": FindingsScreen, "audit": AuditScreen,
             "erasure": ErasureScreen}
    BINDINGS = [Binding(str(n), f"switch_mode('{m}')", m.capitalize(), show=False)
                for n, m in enumerate(MODES, start=1)] + [Binding("ctrl+q", "quit", "quit")]

    status: reactive[dict] = reactive(dict, always_update=True)

    def __init__(self, session: Session):
        super().__init__()
        self.session = session
        self.pending_write = False
        self.generation = 0            # bumped whenever what the screens show may have changed
        self._seen: tuple[int, int] | None = None
        self._live_at = 0.0

    def on_mount(self) -> None:
        self.set_status(path=str(self.session.path), scope=self.session.scope,
                        read_only=self.session.read_only, loading="loading the store …",
                        warning=_exposure(self.session.path))
        self.switch_mode("beliefs")
        self._open()

    def set_status(self, **changes) -> None:
        self.status = {**self.status, **changes}

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
        counts = self.session.counts()
        store = self.session.store
        self.call_from_thread(self.set_status, loading=None, head=_short_head(store.head), **counts)

    def _poll(self) -> None:
        try:
            st = os.stat(self.session.store.paths.log)
        except OSError:
            return
        seen = (st.st_ino, st.st_size)
        if self._seen is not None and seen != self._seen and not self.pending_write:
            self._take_live()
        self._seen = seen
        if self.status.get("live_recent") and time.monotonic() - self._live_at > 3:
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

    def start_action(self, name: str, ids: list[str], visible) -> None:
        if name == "erase":
            self._plan_erase(None, ids)
        else:
            self._plan(name, ids, visible)

    @work(thread=True, exclusive=True, group="plan")
    def _plan(self, name: str, ids: list[str], visible) -> None:
        try:
            plan = plan_action(self.session, name, ids, None)
        except InspectorError as error:
            self.call_from_thread(self.notify, str(error), severity="error", timeout=10)
            return
        hidden = len(set(plan.affected) - visible(plan.affected))
        self.call_from_thread(self.push_screen, PlanModal(plan, hidden),
                              lambda reason: self._confirmed(plan, reason))

    def _confirmed(self, plan, reason: str | None) -> None:
        if reason is not None:
            self._apply(plan, reason)

    def _apply(self, plan, reason: str) -> None:
        def done(result) -> str:
            n = len(result.affected)
            return (f"{result.request.action}: {n} {'entry' if n == 1 else 'entries'} in batch "
                    f"{result.batch} (seq {result.seqs[0]}–{result.seqs[-1]})")
        self._write(apply_action, plan, reason, done)

    @work(thread=True, exclusive=True, group="write")
    def _write(self, apply_fn, plan, reason: str, describe) -> None:
        """Apply a reviewed plan (the one write path of the TUI), then show what it did."""
        self._pending(True)
        try:
            result = apply_fn(self.session, plan, reason)
        except InspectorError as error:
            self.call_from_thread(self.notify, str(error), severity="error", timeout=15)
            return
        finally:
            self._pending(False)
        self.session.rebuild_view()
        self.call_from_thread(self.notify, describe(result), timeout=10)
        self.call_from_thread(self._after_change)

    def _pending(self, pending: bool) -> None:
        """Worker thread: a write is (no longer) running; actions are disabled meanwhile."""
        self.pending_write = pending
        self.call_from_thread(self.screen.refresh_bindings)

    def start_erasure(self, subject: str | None, ids: list[str]) -> None:
        self._plan_erase(subject, ids)

    @work(thread=True, exclusive=True, group="plan")
    def _plan_erase(self, subject: str | None, ids: list[str]) -> None:
        if self.session.scope is not None:
            self.call_from_thread(self.notify, "Erasure works on the whole store: open it without "
                                               "--scope to erase.", severity="error")
            return
        try:
            plan = plan_erase(self.session, subject, ids)
        except InspectorError as error:
            self.call_from_thread(self.notify, str(error), severity="error", timeout=10)
            return
        self.call_from_thread(self.push_screen, EraseModal(plan),
                              lambda reason: reason is not None and self._erase(plan, reason))

    def _erase(self, plan, reason: str) -> None:
        def done(result) -> str:
            self.session.last_certificate = result.certificate
            self.verify_chain()
            return f"erased {len(result.erased)} entries; certificate {result.certificate['id']}"
        self._write(apply_erase, plan, reason, done)

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
