"""Shift+F: a column's values with how many rows hold each (visidata's frequency table). Enter
on a value shows only the rows that hold it; escape on the table shows them all again."""

from __future__ import annotations

import json

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ...present.text import safe, safe_value
from ..sources import ListSource
from ..widgets.columns import Column
from ..widgets.virtual_table import VirtualTable


def shown(row: dict) -> Text:
    """A value as the frequency list shows it (a memory value as JSON, masked if secret)."""
    if "shown" in row:
        text = row["shown"]
        return safe_value(None if text is None else json.loads(text))
    return safe(row["value"] if row["value"] is not None else "(none)", one_line=True)


class FrequencyModal(ModalScreen[dict | None]):
    """Returns the chosen row ({"value", "n"}), or None."""

    BINDINGS = [Binding("escape,F", "dismiss(None)", "close")]

    def __init__(self, column: Column, rows: list[dict]):
        super().__init__()
        self.column, self.rows = column, [{**r, "key": str(n)} for n, r in enumerate(rows)]

    def compose(self) -> ComposeResult:
        total = sum(r["n"] for r in self.rows)
        with Vertical(id="frequency-dialog"):
            n = len(self.rows)
            yield Static(Text(f"{self.column.label}: {n} {'value' if n == 1 else 'values'} over "
                              f"{total} {'row' if total == 1 else 'rows'} · enter shows only the "
                              "rows with that value", style="bold"))
            yield VirtualTable([Column("n", "ROWS", 7, render=lambda v: Text(f"{v:>6}")),
                                Column("value", "VALUE", render=lambda v: v)],
                               key="key", id="frequencies")

    def on_mount(self) -> None:
        table = self.query_one(VirtualTable)
        table.styles.height = min(len(self.rows) + 1, 20)
        table.load(ListSource([{"key": r["key"], "n": r["n"], "value": shown(r)} for r in self.rows]))
        table.focus()

    def on_virtual_table_chosen(self, event: VirtualTable.Chosen) -> None:
        event.stop()
        if event.row is not None:
            self.dismiss(self.rows[int(event.row["key"])])
