"""The shape Review, Quarantine, Conflicts and Findings share: one table of rows that each name
an entry, and the detail pane of the selected one."""

from __future__ import annotations


from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from ..widgets.detail import DetailPane
from ..widgets.virtual_table import Column, VirtualTable
from .base import InspectorScreen


def time_cell(value) -> Text:
    return Text(value.strftime("%m-%d %H:%M") if value else "")


class EntryTableScreen(InspectorScreen):
    """A table whose rows name an entry (column `memory_id`), and its detail pane."""

    ROW_KEY = "memory_id"     # the column that tells rows apart
    TABLE_ID = ""             # the table widget's id

    def columns(self) -> list[Column]:
        raise NotImplementedError

    def body(self) -> ComposeResult:
        yield Static(Text(self.SPEC.hint, style="dim"), classes="hint")
        with Horizontal(id="main"):
            yield VirtualTable(self.columns(), key=self.ROW_KEY, id=self.TABLE_ID or self.SPEC.name)
            yield DetailPane(id="detail")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(DetailPane).clear("")
        self.query_one(VirtualTable).focus()

    def refresh_data(self) -> None:
        self.query_one(VirtualTable).load(self.source(), keep_cursor=True)

    @on(VirtualTable.Highlighted)
    def _highlighted(self, event: VirtualTable.Highlighted) -> None:
        if event.row is not None:
            self._load_detail(event.row["memory_id"])

    @work(thread=True, exclusive=True, group="detail")
    def _load_detail(self, memory_id: str) -> None:
        self._detail_in_two_steps(memory_id, None)

    @on(DetailPane.Jump)
    def _jump(self, event: DetailPane.Jump) -> None:
        self._load_detail(event.memory_id)
