"""The diff view (DESIGN §5a, §9): what the agent started or stopped believing between two
times, and what made it. The window defaults to the hour before now (or before the as-of time
the Beliefs screen shows); f and t type other times. Each change opens the belief's detail
with the events that made the change first and highlighted in its history; enter moves to
them, and enter on a cause jumps to its entry."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from ...present.glyphs import badges
from ...present.text import render_message, safe
from ...store.errors import InspectorError
from ...store.model import format_time, now_utc, parse_time
from ..session import ListSource
from ..spec import ScreenSpec
from ..widgets.detail import DetailPane
from ..widgets.rows import json_cell
from ..widgets.typed_input import TypedInput
from ..widgets.virtual_table import Column, VirtualTable
from . import screen
from .base import InspectorScreen
from .tables import id_column

WINDOW = timedelta(hours=1)       # the default window: the hour before its end
EARLIEST = datetime.min.replace(tzinfo=timezone.utc)
CHANGE_STYLE = {"started": "bold green", "stopped": "bold red", "changed": "bold yellow",
                "markers": "yellow"}


def side_cell(text: str | None) -> Text:
    """A belief's value before or after; a dash where there was no belief."""
    return Text("—", style="dim") if text is None else json_cell(text)


def kind_of(change: dict) -> str:
    """started (a belief where there was none), stopped, changed (another entry or value),
    markers (the same belief, other markers)."""
    before, after = change["before"], change["after"]
    if before is None:
        return "started"
    if after is None:
        return "stopped"
    if before != after:
        return "changed"
    return "markers"


def change_row(n: int, change: dict) -> dict:
    before, after = change["before"], change["after"]
    side = after or before
    return {"row_key": n, "change": kind_of(change), "scope": change["scope"],
            "entity": change["entity"], "attribute": change["attribute"],
            "before": None if before is None else json.dumps(before["value"], ensure_ascii=False),
            "after": None if after is None else json.dumps(after["value"], ensure_ascii=False),
            "before_id": before and before["memory_id"], "after_id": after and after["memory_id"],
            "memory_id": side["memory_id"],
            "marks": badges(change["markers_after"]) or "",
            "causes": change["causes"], "causes_truncated": change["causes_truncated"],
            "n_causes": len(change["causes"])}


def describe(row: dict) -> str:
    """started M7 · changed M1 → M7 · stopped M1 · markers of M7."""
    if row["change"] == "started":
        return f"started: {row['after_id']}"
    if row["change"] == "stopped":
        return f"stopped: {row['before_id']}"
    if row["change"] == "changed":
        return f"changed: {row['before_id']} → {row['after_id']}"
    return f"markers of {row['after_id']} changed"


@screen(ScreenSpec(
    "diff", "Diff", 8, view_time=True,
    empty="No belief changed in this window. f and t set other times (RFC 3339, e.g. "
          "2025-03-01T04:00:00Z): the window's events that made a belief start, stop or change "
          "are listed here.",
    short="Diff"))
class DiffScreen(InspectorScreen):
    BINDINGS = [Binding("f", "focus('#from')", "from", id="diff.from"),
                Binding("t", "focus('#to')", "to", id="diff.to")]
    rows: list[dict] = []

    def body(self) -> ComposeResult:
        with Horizontal(id="controls"):
            yield TypedInput(placeholder="from: an hour before to", id="from")
            yield TypedInput(placeholder="to: now (or the as-of time)", id="to")
        yield Static(id="diff-status", classes="hint")
        with Horizontal(id="main"):
            yield VirtualTable([
                Column("change", "CHANGE", 8, render=lambda v: Text(v, style=CHANGE_STYLE[v])),
                Column("entity", "ENTITY", min=8, measure=True),
                Column("attribute", "ATTRIBUTE", min=10, measure=True),
                Column("before", "BEFORE", render=side_cell, min=10, grow=True),
                Column("after", "AFTER", render=side_cell, min=10, grow=True),
                id_column("memory_id", "ID"),
                Column("scope", "SCOPE", min=10, measure=True, drop=2,
                       render=lambda v: safe(v or '""', one_line=True)),
                Column("marks", "MRK", 3, render=lambda v: Text(v or "", style="bold yellow"), drop=3),
                Column("n_causes", "CAUSES", 6, render=lambda v: Text(str(v)), drop=1),
            ], key="row_key", id="changes", sortable=True, empty=self.SPEC.empty,
                id_field="memory_id", markable=False)       # no action here reads marks
            yield DetailPane(id="detail")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(DetailPane).clear("")
        self.query_one(VirtualTable).focus()

    def window(self) -> tuple[datetime, datetime, str]:
        """(from, to, what the defaults were): typed times, else the hour before the as-of
        time on screen, else before now. ValueError on a time that is not RFC 3339."""
        typed = {name: self.query_one(f"#{name}", Input).value.strip() for name in ("from", "to")}
        as_of = self.app.status.as_of
        if typed["to"]:
            to, why = parse_time(typed["to"]), ""
        elif as_of:
            to, why = parse_time(as_of), "the as-of time on screen"
        else:      # now, up to its next whole second: shown exact, without microseconds
            to, why = now_utc(), "now"
            if to.microsecond:
                to = to.replace(microsecond=0) + timedelta(seconds=1)
        # Nothing precedes the first instant there is (year 1): the window then starts at it.
        start = parse_time(typed["from"]) if typed["from"] else max(to, EARLIEST + WINDOW) - WINDOW
        if not typed["from"]:
            why = f"the hour before {why or 'to'}"
        return start, to, why

    applied = {"from": "", "to": ""}      # what the fields held when the window was last read

    def refresh_data(self) -> None:
        try:
            start, end, why = self.window()
        except ValueError as error:
            self.notify(render_message(str(error)), severity="error", markup=False)
            return
        if start > end:
            # Refused as an unreadable time is: the rows and the line above stay the window they
            # are of, and leaving the field puts its text back (the rows stayed while the fields
            # and the line named another window, in the CLI's words: helper-78).
            self.notify(f"from {format_time(start)} is after to {format_time(end)}: give the "
                        "earlier time in f (from); the window is as the line above says",
                        severity="error", markup=False, timeout=8)
            return
        self.applied = {name: self.query_one(f"#{name}", Input).value.strip()
                        for name in ("from", "to")}
        if self.app.session.store is None:
            return      # still opening: the load lists the window (a diff of no store ended the app)
        self._status(Text(f"changes from {format_time(start)} to {format_time(end)} … ", style="italic"))
        self._compare(start, end, why)

    @work(thread=True, exclusive=True, group="diff")
    def _compare(self, start: datetime, end: datetime, why: str) -> None:
        worker = get_current_worker()
        try:
            changes, n_erased = self.app.session.diff(start, end)
        except InspectorError as error:
            self.app.call_from_thread(self._status, Text(f"diff: {error}", style="bold red"))
            return
        if worker.is_cancelled:
            return
        self.rows = [change_row(n, c) for n, c in enumerate(changes)]
        line = Text(f"{len(self.rows)} {'belief' if len(self.rows) == 1 else 'beliefs'} changed ",
                    style="bold")
        line.append(f"from {format_time(start)} to {format_time(end)}")
        if why:
            line.append(f" ({why})", style="dim")
        if n_erased:
            line.append(f" · {n_erased} {'entry' if n_erased == 1 else 'entries'} erased in it "
                        "(on neither side)", style="bold yellow")
        line.append(" · f from · t to · enter: what made it", style="dim")
        self.app.call_from_thread(self._status, line)
        self.app.call_from_thread(self.query_one(VirtualTable).load, self.source(), keep_cursor=True)
        if not self.rows:        # no row to describe: the last window's change must not stay
            self.app.call_from_thread(self.query_one(DetailPane).clear, "")

    def _status(self, text: Text) -> None:
        self.query_one("#diff-status", Static).update(text, layout=False)

    def source(self):
        table = self.main_table()
        return ListSource(self.rows, sort=table.sort, narrow=table.narrow)

    def frequency_source(self, table):
        return ListSource(self.rows)

    def applied_fields(self) -> list[tuple[str, str, str, object]]:
        """The window's fields (helper-64: "2025-13-45" stayed in the from field while the
        window was another)."""
        return [(name, self.applied[name], "the window is as the line above says", None)
                for name in ("from", "to")]

    def enter_leaves(self, field: Input) -> bool:
        """Enter in from or to leaves for the table when the window it makes can be applied
        (TypedInput then sends the keys typed after it to the table and the app: "t" and the
        end time went back into the from field, and the window ran to now). The window is
        taken as applied now, so that leaving does not put the field's earlier text back;
        the Submitted message that follows compares it. A time refused stays in its field."""
        if field.id not in ("from", "to"):
            return False
        try:
            start, end, _ = self.window()
        except ValueError:
            return False
        if start > end:
            return False
        self.applied = {name: self.query_one(f"#{name}", Input).value.strip()
                        for name in ("from", "to")}
        return True

    @on(Input.Submitted, "#from, #to")
    def _window_changed(self, event: Input.Submitted) -> None:
        self.refresh_data()
        self.query_one(VirtualTable).focus()

    # -- one change -------------------------------------------------------------------------

    def show_row(self, row) -> None:
        self.query_one(DetailPane).expect(row["memory_id"])
        self._load_change(row)

    @work(thread=True, exclusive=True, group="detail")
    def _load_change(self, row: dict) -> None:
        """The belief's detail in the change's context, with the change and its causes."""
        worker = get_current_worker()
        pane = self.query_one(DetailPane)
        detail = self.app.session.detail(row["memory_id"], row["scope"])
        if worker.is_cancelled:
            return
        if detail is None:
            self.app.call_from_thread(self._gone, pane, row["memory_id"])
            return
        detail.change, detail.causes = describe(row), row["causes"]
        detail.causes_truncated = row["causes_truncated"]
        self.app.call_from_thread(pane.show, detail)

    @on(VirtualTable.Chosen)
    def _chosen(self, event: VirtualTable.Chosen) -> None:
        if event.row is not None:
            self.query_one(DetailPane).focus_causes()
