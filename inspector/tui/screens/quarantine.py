"""The Quarantine screen: quarantined entries, newest first, with who quarantined them and why."""

from __future__ import annotations

from ..spec import ScreenSpec
from ..widgets.rows import json_cell
from ..widgets.virtual_table import Column
from . import screen
from .tables import EntryTableScreen, time_cell


@screen(ScreenSpec(
    "quarantine", "Quarantine", 4, table="tui_quarantine", rows=("tui_quarantine_rows",),
    count=True, actions=("release", "retract", "erase"),
    hint="Quarantined entries, newest first: u release (restores the earlier status) · "
         "r retract · e erase"))
class QuarantineScreen(EntryTableScreen):
    TABLE_ID = "quarantined"

    def columns(self) -> list[Column]:
        return [Column("memory_id", "ID", 8), Column("entity", "ENTITY", 12),
                Column("attribute", "ATTRIBUTE", 12), Column("value", "VALUE", None, render=json_cell),
                Column("batch", "BATCH", 14), Column("actor", "BY", 14),
                Column("quarantined_at", "AT", 11, render=time_cell), Column("reason", "REASON", 18)]
