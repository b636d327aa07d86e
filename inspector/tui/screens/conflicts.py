"""The Conflicts screen: one row per marker of the view's beliefs — the belief, then the
entries that cause the marker; enter opens the belief in the Beliefs screen."""

from __future__ import annotations

from rich.text import Text
from textual import on

from ...present.text import safe
from ..spec import ScreenSpec
from ..widgets.rows import json_cell
from ..widgets.virtual_table import Column, VirtualTable
from . import screen
from .tables import EntryTableScreen


@screen(ScreenSpec(
    "conflicts", "Conflicts", 3, table="tui_conflicts", rows=("tui_conflict_rows",), count=True,
    actions=("quarantine", "retract", "erase"), visible="tui_visible_with_causes",
    hint="Beliefs with markers: the belief, then the entries that cause the marker · "
         "enter: open in Beliefs"))
class ConflictsScreen(EntryTableScreen):
    TABLE_ID = "conflicts"
    ROW_KEY = "row_key"

    def columns(self) -> list[Column]:
        return [Column("marker", "MARKER", 19, render=lambda v: Text(v, style="yellow")),
                Column("memory_id", "BELIEF", 8),
                Column("causes", "CAUSED BY", 14, render=lambda v: safe(", ".join(v), one_line=True)),
                Column("entity", "ENTITY", 12), Column("attribute", "ATTRIBUTE", 12),
                Column("value", "VALUE", None, render=json_cell),
                Column("scope", "SCOPE", 16, render=lambda v: safe(v or '""', one_line=True))]

    @on(VirtualTable.Chosen)
    def _chosen(self, event: VirtualTable.Chosen) -> None:
        if event.row is not None:
            self.app.open_belief(event.row["memory_id"])
