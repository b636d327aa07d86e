"""The Beliefs screen: the belief table of a context at a moment, with a filter, and the detail
pane for the selected row."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input

from ...store.model import format_time, parse_time
from ...present.text import safe
from ..widgets.detail import DetailPane
from ..widgets.rows import json_cell
from ..widgets.virtual_table import Column, VirtualTable
from ...present.glyphs import badges
from ..spec import ScreenSpec
from . import screen
from .base import InspectorScreen

KIND = {"observation": "obs", "summary": "sum", "claim": "clm", "inference": "inf"}


def belief_columns() -> list[Column]:
    return [
        Column("memory_id", "ID", 6),
        Column("entity", "ENTITY", 11),
        Column("attribute", "ATTRIBUTE", 14),
        Column("value", "VALUE", None, render=json_cell),
        Column("scope", "SCOPE", 14, render=lambda v: safe(v or '""', one_line=True)),
        Column("kind", "KND", 3, render=lambda v: Text(KIND.get(v, v or ""))),
        Column("source", "SOURCE", 11),
        Column("authority", "AU", 2, render=lambda v: Text(str(v))),
        Column("observed_at", "OBSERVED", 11, render=lambda v: Text(v.strftime("%m-%d %H:%M") if v else "")),
        Column("marks", "MRK", 3, render=lambda v: Text(badges(v), style="bold yellow")),
    ]


@screen(ScreenSpec(
    "beliefs", "Beliefs", 1, table="tui_beliefs", rows=("tui_beliefs_all",),
    actions=("quarantine", "retract", "expire", "erase")))
class BeliefsScreen(InspectorScreen):
    BINDINGS = [
        Binding("slash", "focus('#filter')", "filter"),
        Binding("c", "focus('#context')", "context"),
        Binding("t", "focus('#as-of')", "as-of"),
        Binding("l", "lineage", "lineage"),
        Binding("escape", "focus('#beliefs')", "table", show=False),
    ]

    def body(self) -> ComposeResult:
        with Horizontal(id="controls"):
            yield Input(placeholder="filter: entity, attribute, value, source, id", id="filter")
            yield Input(placeholder="context: (each scope)", id="context")
            yield Input(placeholder="as of: now", id="as-of")
            yield Input(placeholder="valid at: = as of", id="valid-at")
        with Horizontal(id="main"):
            yield VirtualTable(belief_columns(), key="row_key", id="beliefs")
            yield DetailPane(id="detail")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#detail", DetailPane).clear("loading the store …")
        self.query_one("#beliefs", VirtualTable).focus()

    def refresh_data(self) -> None:
        self.query_one("#beliefs", VirtualTable).load(self.source(), keep_cursor=True)

    # -- filter, context, time ----------------------------------------------------------------

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._refilter(event.value)

    @work(thread=True, exclusive=True, group="belief-filter")
    def _refilter(self, text: str) -> None:
        import time
        time.sleep(0.12)                    # debounce: the newest keystroke's worker wins
        if self.app.session.store is None:
            return
        self.app.session.refilter(text)
        self.app.call_from_thread(self.refresh_data)

    @on(Input.Submitted, "#context, #as-of, #valid-at")
    def _view_changed(self, event: Input.Submitted) -> None:
        values = {}
        for name in ("as-of", "valid-at"):
            text = self.query_one(f"#{name}", Input).value.strip()
            try:
                values[name] = parse_time(text) if text else None
            except ValueError as exc:
                self.notify(f"{name}: {exc}", severity="error")
                return
        context = self.query_one("#context", Input).value.strip() or None
        self.app.session.set_view(context, values["as-of"], values["valid-at"])
        self.app.set_status(as_of=format_time(values["as-of"]) if values["as-of"] else None)
        self.app.rebuild_view()
        self.query_one("#beliefs", VirtualTable).focus()

    # -- the selected row ---------------------------------------------------------------------

    @on(VirtualTable.Highlighted, "#beliefs")
    def _highlighted(self, event: VirtualTable.Highlighted) -> None:
        if event.row is not None:
            self._load_detail(event.row["memory_id"], event.row["scope"])

    @work(thread=True, exclusive=True, group="belief-detail")
    def _load_detail(self, memory_id: str, context: str | None) -> None:
        self._detail_in_two_steps(memory_id, context)

    @on(DetailPane.Jump)
    def _jump(self, event: DetailPane.Jump) -> None:
        self.show_entry(event.memory_id)

    @work(thread=True, exclusive=True, group="belief-jump")
    def show_entry(self, memory_id: str) -> None:
        """Move to the belief row of `memory_id`, or show its detail when it has none."""
        detail = self.app.session.detail(memory_id, None)
        if detail is None:
            self.app.call_from_thread(self.notify, "That entry is not loaded.", severity="warning")
            return
        row = self.app.session.find_belief(memory_id, detail.context)
        table = self.query_one("#beliefs", VirtualTable)
        if row is not None:
            self.app.call_from_thread(table.move_cursor, row)
        else:
            self.app.call_from_thread(self.query_one("#detail", DetailPane).show, detail)
        self.app.call_from_thread(table.focus)

    def action_lineage(self) -> None:
        self.query_one(DetailPane).focus_lineage()
