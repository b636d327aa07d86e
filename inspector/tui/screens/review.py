"""The Review screen: the held queue, oldest first, with what the gate matched in each write."""

from __future__ import annotations

from ...store.registry import ACTIONS
from ..entry_detail import held_rows
from ..spec import ScreenSpec
from ..widgets.rows import json_cell
from ..widgets.virtual_table import Column
from . import screen
from .tables import EntryTableScreen, id_column, time_column


@screen(ScreenSpec(
    "review", "Review", 2, table="tui_held", rows=("tui_held_source", "tui_held_rows"),
    patch_rows=("tui_held_source", "tui_held_patch_gone", "tui_held_patch_forget",
                "tui_held_patch_shift", "tui_held_patch_take"), count=True,
    actions=("approve", "reject", "quarantine", "retract", "erase"),
    hint=f"Held writes, oldest first, with what the gate matched: {ACTIONS['approve'].key} approve · "
         f"{ACTIONS['reject'].key} reject · space marks several",
    empty="No held writes. The gate holds instructions from untrusted sources, secrets and "
          "unsupported summaries here until someone approves or rejects them.",
    short="Review"))
class ReviewScreen(EntryTableScreen):
    TABLE_ID = "held"
    decorate = staticmethod(held_rows)

    def columns(self) -> list[Column]:
        return [id_column(),
                Column("held_reason", "HELD BECAUSE", shows="held_why", min=24, grow=True),
                Column("entity", "ENTITY", min=8, measure=True, drop=4),
                Column("attribute", "ATTRIBUTE", min=9, measure=True, drop=3),
                Column("value", "VALUE", render=json_cell, min=16, grow=True),
                Column("source", "SOURCE", min=12, measure=True, drop=2),
                time_column("held_at", "HELD AT", drop=1)]
