"""The shape Review, Quarantine, Conflicts and Findings share: one table of rows that each name
an entry, and the detail pane of the selected one."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from ..widgets.detail import DetailPane
from ..widgets.virtual_table import Column, VirtualTable
from .base import InspectorScreen


def time_column(key: str, label: str, drop: int = 0) -> Column:
    """A time: the year and the seconds are shown where the rows differ in them."""
    return Column(key, label, time=True, drop=drop)


def id_column(key: str = "memory_id", label: str = "ID") -> Column:
    """An id: as wide as the longest one, never cut."""
    return Column(key, label, keep=True)


class EntryTableScreen(InspectorScreen):
    """A table whose rows name an entry (column `memory_id`), and its detail pane."""

    ROW_KEY = "memory_id"     # the column that tells rows apart
    TABLE_ID = ""             # the table widget's id

    def columns(self) -> list[Column]:
        raise NotImplementedError

    def body(self) -> ComposeResult:
        yield Static(Text(self.SPEC.hint, style="dim"), classes="hint")
        yield from self.main()

    def main(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield VirtualTable(self.columns(), key=self.ROW_KEY, id=self.TABLE_ID or self.SPEC.name,
                               sortable=True, empty=self.SPEC.empty, id_field="memory_id")
            yield DetailPane(id="detail")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(DetailPane).clear("")
        self.query_one(VirtualTable).focus()

    def refresh_data(self) -> None:
        self.query_one(VirtualTable).load(self.source(), keep_cursor=True)

    @on(VirtualTable.Chosen)
    def _chosen(self, event: VirtualTable.Chosen) -> None:
        if event.row is not None:
            self.open_row(event.row)
