"""The Quarantine screen: quarantined entries, newest first, with who quarantined them and why."""

from __future__ import annotations

from ...store.registry import ACTIONS
from ..spec import ScreenSpec
from ..widgets.rows import json_cell
from ..widgets.virtual_table import Column
from . import screen
from .tables import EntryTableScreen, id_column, time_column


@screen(ScreenSpec(
    "quarantine", "Quarantine", 4, table="tui_quarantine", rows=("tui_quarantine_source", "tui_quarantine_rows"),
    patch_rows=("tui_quarantine_source", "tui_quarantine_patch_gone", "tui_quarantine_patch_new",
                "tui_quarantine_patch_forget", "tui_quarantine_patch_close",
                "tui_quarantine_patch_shift", "tui_quarantine_patch_take"),
    count=True, actions=("release", "retract", "erase"),
    hint=f"Quarantined entries, newest first: {ACTIONS['release'].key} release (restores the earlier "
         f"status) · {ACTIONS['retract'].key} retract · {ACTIONS['erase'].key} erase",
    empty="Nothing is quarantined. Entries quarantined from Beliefs, Review, Conflicts or "
          "Findings wait here: release them, or retract or erase them for good.",
    short="Quar"))
class QuarantineScreen(EntryTableScreen):
    TABLE_ID = "quarantined"

    def columns(self) -> list[Column]:
        return [id_column(), Column("entity", "ENTITY", min=8, measure=True, drop=3),
                Column("attribute", "ATTRIBUTE", min=9, measure=True),
                Column("value", "VALUE", render=json_cell, min=10, grow=True),
                id_column("batch", "BATCH"), Column("actor", "BY", min=8, measure=True, drop=2),
                time_column("quarantined_at", "AT", drop=1),
                Column("reason", "REASON", min=12, grow=True, drop=4)]
