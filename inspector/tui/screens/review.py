"""The Review screen: the held queue, oldest first, with the reason each write was held."""

from __future__ import annotations

from ..spec import ScreenSpec
from ..widgets.rows import json_cell
from ..widgets.virtual_table import Column
from . import screen
from .tables import EntryTableScreen, time_cell


@screen(ScreenSpec(
    "review", "Review", 2, table="tui_held", rows=("tui_held_rows",), count=True,
    actions=("approve", "reject", "quarantine", "retract", "erase"),
    hint="Held writes, oldest first: a approve · x reject · space mark several · "
         "enter on the detail's rivals to compare"))
class ReviewScreen(EntryTableScreen):
    TABLE_ID = "held"

    def columns(self) -> list[Column]:
        return [Column("memory_id", "ID", 8), Column("held_reason", "HELD BECAUSE", 19),
                Column("entity", "ENTITY", 12), Column("attribute", "ATTRIBUTE", 12),
                Column("value", "VALUE", None, render=json_cell), Column("source", "SOURCE", 16),
                Column("held_at", "HELD AT", 11, render=time_cell)]
