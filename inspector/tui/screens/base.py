"""What every screen has: the header, the bar of screens, the footer, and the curation actions
of the registry that apply to it (bound to the registry's keys, hidden when read-only,
disabled while a write is pending)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

from ...store.registry import ACTIONS
from ..widgets.header import ModeBar, StoreHeader


def action_bindings(names: tuple[str, ...]) -> list[Binding]:
    return [Binding(ACTIONS[n].key, f"act('{n}')", n, tooltip=ACTIONS[n].help) for n in names]


class InspectorScreen(Screen):
    MODE = ""
    ACTIONS: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield StoreHeader()
        yield ModeBar(self.MODE)
        yield from self.body()
        yield Footer()

    def body(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        self.watch(self.app, "status", self._show_status)

    def _show_status(self, status: dict) -> None:
        self.query_one(StoreHeader).show(status)
        self.query_one(ModeBar).show(status)

    def on_screen_resume(self) -> None:
        if self.app.session.store is not None:
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
