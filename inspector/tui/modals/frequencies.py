"""Shift+F: a column's values with how many rows hold each (visidata's frequency table). Enter
on a value shows only the rows that hold it; escape on the table shows them all again. A time
is shown as the table's column shows it; the narrowing still compares the exact value."""

from __future__ import annotations

import json
from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ...present.text import safe, safe_value
from ..sources import ListSource
from ..widgets.columns import Column, TimeSpan
from ..widgets.virtual_table import VirtualTable


def shown(row: dict, span: TimeSpan | None = None) -> Text:
    """A value as the frequency list shows it (a memory value as JSON, masked if secret; a time
    in `span`'s format, the one its table column uses)."""
    if "shown" in row:
        text = row["shown"]
        return safe_value(None if text is None else json.loads(text))
    if span is not None and isinstance(row.get("raw"), datetime):
        return span.cell(row["raw"])
    return safe(row["value"] if row["value"] is not None else "(none)", one_line=True)


def shown_all(rows: list[dict], span: TimeSpan | None = None) -> list[Text]:
    """Each row's value as shown; times that the column's format would show alike (they differ
    below what it shows: fractions of a second) are shown whole instead, so that no two rows
    of the list read the same and enter narrows to the one the operator read."""
    texts = [shown(r, span) for r in rows]
    if span is None:
        return texts
    seen: dict[str, int] = {}
    for text in texts:
        seen[text.plain] = seen.get(text.plain, 0) + 1
    return [shown(r) if seen[t.plain] > 1 else t for r, t in zip(rows, texts)]


class FrequencyModal(ModalScreen[dict | None]):
    """Returns the chosen row ({"value", "n"}), or None."""

    BINDINGS = [Binding("escape,F", "dismiss(None)", "close")]

    def __init__(self, column: Column, rows: list[dict], span: TimeSpan | None = None):
        super().__init__()
        self.column, self.rows = column, [{**r, "key": str(n)} for n, r in enumerate(rows)]
        self.span = span

    def compose(self) -> ComposeResult:
        total = sum(r["n"] for r in self.rows)
        # A time column's one year is in its header, as in the table's ("OBSERVED 2026").
        label = self.span.label(self.column.label) if self.span is not None else self.column.label
        with Vertical(id="frequency-dialog"):
            n = len(self.rows)
            yield Static(Text(f"{label}: {n} {'value' if n == 1 else 'values'} over "
                              f"{total} {'row' if total == 1 else 'rows'} · enter shows only the "
                              "rows with that value", style="bold"))
            yield VirtualTable([Column("n", "ROWS", 7, render=lambda v: Text(f"{v:>6}")),
                                Column("value", "VALUE", render=lambda v: v)],
                               key="key", id="frequencies", markable=False)

    def on_mount(self) -> None:
        table = self.query_one(VirtualTable)
        table.styles.height = min(len(self.rows) + 1, 20)
        table.load(ListSource([{"key": r["key"], "n": r["n"], "value": text}
                               for r, text in zip(self.rows, shown_all(self.rows, self.span))]))
        table.focus()

    def on_virtual_table_chosen(self, event: VirtualTable.Chosen) -> None:
        event.stop()
        if event.row is not None:
            self.dismiss(self.rows[int(event.row["key"])])
