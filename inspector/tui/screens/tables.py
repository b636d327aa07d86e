"""Screens that are one table of entries plus the detail pane of the selected one: Review (held
queue), Quarantine and Conflicts share this shape."""

from __future__ import annotations


from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from ..text import safe
from ..widgets.detail import DetailPane
from ..widgets.rows import json_cell
from ..widgets.virtual_table import Column, VirtualTable
from .base import InspectorScreen, action_bindings


def time_cell(value) -> Text:
    return Text(value.strftime("%m-%d %H:%M") if value else "")


class EntryTableScreen(InspectorScreen):
    """A table whose rows name an entry (column `memory_id`), and its detail pane."""

    TABLE_ID = "entries"
    HINT = ""

    def columns(self) -> list[Column]:
        raise NotImplementedError

    def source(self):
        raise NotImplementedError

    def body(self) -> ComposeResult:
        yield Static(Text(self.HINT, style="dim"), classes="hint")
        with Horizontal(id="main"):
            yield VirtualTable(self.columns(), key="memory_id", id=self.TABLE_ID)
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

    def selected_ids(self) -> list[str]:
        table = self.query_one(VirtualTable)
        if table.marked:
            return sorted(table.marked)
        row = table.row_at(table.cursor_row)
        return [row["memory_id"]] if row else []


class ReviewScreen(EntryTableScreen):
    MODE = "review"
    ACTIONS = ("approve", "reject", "quarantine", "retract", "erase")
    TABLE_ID = "held"
    HINT = "Held writes, oldest first: a approve · x reject · space mark several · enter on the detail's rivals to compare"
    BINDINGS = action_bindings(ACTIONS)

    def columns(self) -> list[Column]:
        return [Column("memory_id", "ID", 8), Column("held_reason", "HELD BECAUSE", 19),
                Column("entity", "ENTITY", 12), Column("attribute", "ATTRIBUTE", 12),
                Column("value", "VALUE", None, render=json_cell), Column("source", "SOURCE", 16),
                Column("held_at", "HELD AT", 11, render=time_cell)]

    def source(self):
        return self.app.session.held_source()


class QuarantineScreen(EntryTableScreen):
    MODE = "quarantine"
    ACTIONS = ("release", "retract", "erase")
    TABLE_ID = "quarantined"
    HINT = "Quarantined entries, newest first: u release (restores the earlier status) · r retract · e erase"
    BINDINGS = action_bindings(ACTIONS)

    def columns(self) -> list[Column]:
        return [Column("memory_id", "ID", 8), Column("entity", "ENTITY", 12),
                Column("attribute", "ATTRIBUTE", 12), Column("value", "VALUE", None, render=json_cell),
                Column("batch", "BATCH", 14), Column("actor", "BY", 14),
                Column("quarantined_at", "AT", 11, render=time_cell), Column("reason", "REASON", 18)]

    def source(self):
        return self.app.session.quarantine_source()


class ConflictsScreen(EntryTableScreen):
    MODE = "conflicts"
    ACTIONS = ("quarantine", "retract", "erase")
    TABLE_ID = "conflicts"
    HINT = "Beliefs with markers: the belief, then the entries that cause the marker · enter: open in Beliefs"
    BINDINGS = action_bindings(ACTIONS)

    def columns(self) -> list[Column]:
        return [Column("marker", "MARKER", 19, render=lambda v: Text(v, style="yellow")),
                Column("memory_id", "BELIEF", 8),
                Column("causes", "CAUSED BY", 14, render=lambda v: safe(", ".join(v), one_line=True)),
                Column("entity", "ENTITY", 12), Column("attribute", "ATTRIBUTE", 12),
                Column("value", "VALUE", None, render=json_cell),
                Column("scope", "SCOPE", 16, render=lambda v: safe(v or '""', one_line=True))]

    def body(self) -> ComposeResult:
        yield Static(Text(self.HINT, style="dim"), classes="hint")
        with Horizontal(id="main"):
            yield VirtualTable(self.columns(), key="row_key", id=self.TABLE_ID)
            yield DetailPane(id="detail")

    def source(self):
        return self.app.session.conflict_source()

    @on(VirtualTable.Chosen)
    def _chosen(self, event: VirtualTable.Chosen) -> None:
        if event.row is not None:
            self.app.switch_mode("beliefs")
            self.app.screen.call_after_refresh(self.app.screen._jump_to, event.row["memory_id"])
