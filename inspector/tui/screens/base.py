"""What every screen has: the header, the bar of screens, the footer, and the curation actions
of the registry that apply to it (bound to the registry's keys, hidden when read-only,
disabled while a write is pending)."""

from __future__ import annotations

import threading

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import get_current_worker

from ...store.registry import ACTIONS
from ..widgets.detail import DetailPane
from ..widgets.header import ModeBar, StoreHeader
from ..widgets.keybar import KeyBar


LINEAGE_GRACE_S = 0.03   # paint once if the lineage is ready this soon, else in two steps


def action_bindings(names: tuple[str, ...]) -> list[Binding]:
    return [Binding(ACTIONS[n].key, f"act('{n}')", n, tooltip=ACTIONS[n].help) for n in names]


class InspectorScreen(Screen):
    MODE = ""
    ACTIONS: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield StoreHeader()
        yield ModeBar(self.MODE)
        yield from self.body()
        yield KeyBar()

    def body(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        self.watch(self.app, "status", self._show_status)

    def _show_status(self, status: dict) -> None:
        self.query_one(StoreHeader).show(status)
        self.query_one(ModeBar).show(status)

    loaded_generation = -1

    def on_screen_resume(self) -> None:
        if self.app.session.store is not None and self.loaded_generation != self.app.generation:
            self.reload()

    def reload(self) -> None:
        self.loaded_generation = self.app.generation
        self.refresh_data()

    def refresh_data(self) -> None:
        """Reload what this screen shows from the store (after a load, a write, live lines)."""

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "act":
            name = parameters[0]
            if self.app.session.read_only or name not in self.ACTIONS:
                return False
            if self.app.pending_write or self.app.session.store is None:
                return None
        return True

    def _detail_in_two_steps(self, memory_id: str, context: str | None) -> None:
        """Worker thread: the entry, its rivals and history, then its lineage. When the lineage
        comes quickly the pane is painted once; otherwise the first half is shown at once and
        the lineage when it arrives. A newer cursor move cancels this worker: nothing stale is
        shown."""
        worker = get_current_worker()
        detail = self.app.session.detail(memory_id, context, with_lineage=False)
        if detail is None or worker.is_cancelled:
            return
        pane = self.query_one(DetailPane)
        shown = False
        lineage = threading.Thread(target=self.app.session.add_lineage, args=(detail,))
        lineage.start()
        lineage.join(LINEAGE_GRACE_S)
        if lineage.is_alive():
            if worker.is_cancelled:
                return
            self.app.call_from_thread(pane.show, detail)
            shown = True
            lineage.join()
        if worker.is_cancelled:
            return
        self.app.call_from_thread(pane.show_lineage if shown else pane.show, detail)

    def action_act(self, name: str) -> None:
        ids = self.selected_ids()
        if not ids:
            self.notify("Nothing selected: move the cursor to an entry or mark some with space.",
                        severity="warning")
            return
        self.app.start_action(name, ids, self.visible_ids)

    def selected_ids(self) -> list[str]:
        return []

    def visible_ids(self, ids: list[str]) -> set[str]:
        """Which of `ids` this screen shows (the plan says how many it does not); worker thread."""
        return self.app.session.visible(self.MODE, ids)
