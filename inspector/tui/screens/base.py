"""What every screen has: the header, the bar of screens, the key bar, and the curation actions
its spec offers (bound by `screens.screen`, removed in read-only mode, disabled while a write is
pending); the rows it pages, what is selected, and what the table shows, all from its spec."""

from __future__ import annotations

import threading

from textual.app import ComposeResult
from textual.screen import Screen
from textual.worker import get_current_worker

from ...store.registry import available
from ..spec import ScreenSpec, Status
from ..widgets.detail import DetailPane
from ..widgets.header import ModeBar, StoreHeader
from ..widgets.keybar import KeyBar
from ..widgets.virtual_table import VirtualTable


LINEAGE_GRACE_S = 0.03   # paint once if the lineage is ready this soon, else in two steps


class InspectorScreen(Screen):
    SPEC: ScreenSpec          # set by the `screen` decorator

    def compose(self) -> ComposeResult:
        yield StoreHeader()
        yield ModeBar(self.SPEC.name)
        yield from self.body()
        yield KeyBar()

    def body(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        self.watch(self.app, "status", self._show_status)

    def _show_status(self, status: Status) -> None:
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
            allowed = {a.name for a in available(self.app.session.read_only)}
            if name not in self.SPEC.actions or name not in allowed:
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

    def source(self):
        """What the screen's table pages: its spec's table."""
        return self.app.session.table_source(self.SPEC.table)

    def selected_ids(self) -> list[str]:
        """The marked rows' entries, else the entry under the cursor."""
        tables = self.query(VirtualTable)
        if not tables:
            return []
        table = tables.first()
        rows = table.marked_rows() or [table.row_at(table.cursor_row)]
        return sorted({row["memory_id"] for row in rows if row is not None})

    def visible_ids(self, ids: list[str]) -> set[str]:
        """Which of `ids` this screen shows (the plan says how many it does not); worker thread."""
        return self.app.session.visible(self.SPEC, ids)
