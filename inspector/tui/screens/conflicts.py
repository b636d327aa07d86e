"""The Conflicts screen: one row per marker of the view's beliefs — the belief, then the
entries that cause the marker; enter opens the belief in the Beliefs screen."""

from __future__ import annotations

from rich.text import Text

from ...present.text import safe
from ..spec import ScreenSpec, Shift
from ..widgets.rows import json_cell
from ..widgets.virtual_table import Column
from . import screen
from .tables import EntryTableScreen, id_column


@screen(ScreenSpec(
    "conflicts", "Conflicts", 3, view_time=True, table="tui_conflicts",
    rows=("tui_conflict_source", "tui_conflict_rows", "tui_conflict_places_view"),
    patch_rows=("tui_conflict_source", "tui_conflict_patch_rows", "tui_conflict_patch_plan",
                "tui_conflict_patch_forget", "tui_conflict_shift_ranges",
                Shift("tui_conflict_moves", "tui_conflict_shift_range", "tui_conflict_patch_shift"),
                "tui_conflict_patch_take", "tui_conflict_patch_done"), count=True,
    actions=("quarantine", "retract", "expire", "erase"), visible="tui_visible_with_causes",
    hint="Beliefs with markers: the belief, then the entries that cause the marker · "
         "enter: open in Beliefs",
    empty="No conflicts in this view. A belief that is contested, vetoed by a newer entry, or "
          "disagreed with by a claim or an inference is listed here with what causes it.",
    short="Confl"))
class ConflictsScreen(EntryTableScreen):
    TABLE_ID = "conflicts"
    ROW_KEY = "row_key"

    def columns(self) -> list[Column]:
        return [Column("marker", "MARKER", min=6, measure=True,      # as wide as its markers
                       render=lambda v: Text(v, style="yellow")),
                id_column("memory_id", "BELIEF"),
                Column("causes", "CAUSED BY", keep=True,
                       render=lambda v: safe(", ".join(v), one_line=True)),
                Column("entity", "ENTITY", min=8, measure=True, drop=2),
                Column("attribute", "ATTRIBUTE", min=9, measure=True),
                Column("value", "VALUE", render=json_cell, min=10, grow=True),
                Column("scope", "SCOPE", min=10, measure=True, drop=1,
                       render=lambda v: safe(v or '""', one_line=True))]

    def open_row(self, row) -> None:
        """Enter opens the belief in the Beliefs screen (the hint says so), not the pane here."""
        self.app.open_belief(row["memory_id"])
