"""The Beliefs screen: the belief table of a context at a moment, with a filter, the legend of
its markers, and the detail pane for the selected row (or the entry a jump went to)."""

from __future__ import annotations

import time

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Static

from ...present.glyphs import MARK_BADGES, badges
from ...present.text import render, safe
from ...store.model import format_time, parse_time, scope_filter_error
from ..spec import ScreenSpec, Shift
from ..widgets.detail import DetailPane
from ..widgets.rows import json_cell
from ..widgets.typed_input import TypedInput
from ..widgets.virtual_table import Column, VirtualTable
from . import screen
from .base import InspectorScreen
from .tables import id_column, time_column

KIND = {"observation": "obs", "summary": "sum", "claim": "clm", "inference": "inf"}
# The legend of the MRK column, long and short (the short one fits 80 columns).
LEGEND = {"contested": ("contested", "contested"), "claim_disagrees": ("claim disagrees", "claim≠"),
          "inference_disagrees": ("inference disagrees", "inference≠"),
          "vetoed_newer": ("vetoed newer", "vetoed"),
          "overridden": ("overridden in a narrower scope", "overridden"),
          "from_broader": ("won by a broader scope's entry", "broader")}


def _same_time(typed: str, applied: str) -> bool:
    """Whether a time field's text names the time the view is at (another spelling of it)."""
    try:
        return bool(applied) and bool(typed) and parse_time(typed) == parse_time(applied)
    except ValueError:
        return False


def legend(width: int) -> Text:
    """MRK: ⚑ contested · C claim disagrees · …, in the words that fit `width`."""
    for long in (True, False):
        text = Text("MRK ", style="bold")
        for n, (name, glyph) in enumerate(MARK_BADGES.items()):
            text.append(("  " if n else "") + glyph, style="bold yellow")
            text.append(" " + LEGEND[name][0 if long else 1])
        if text.cell_len <= width:
            break
    return text


def scope_column(key: str) -> Column:
    """SCOPE: in "each scope" mode the context a row answers (`scope`), as `inspector beliefs`
    prints it: the rows of one key won by one broader entry differ by it alone (↑ in MRK says
    a broader scope's entry won, and the pane names that entry's scope). Under a context,
    where every row answers that context, the winning entry's own scope (`belief_scope`)."""
    return Column(key, "SCOPE", min=12, measure=True, drop=3,
                  render=lambda v: safe(v or '""', one_line=True))


def belief_columns() -> list[Column]:
    return [
        id_column(),
        Column("entity", "ENTITY", min=9, measure=True),
        Column("attribute", "ATTRIBUTE", min=14, measure=True),
        Column("value", "VALUE", render=json_cell, min=14, grow=True),
        scope_column("scope"),
        Column("kind", "KND", 3, render=lambda v: Text(KIND.get(v, v or "")), drop=5),
        Column("source", "SOURCE", min=12, measure=True, drop=4),
        Column("authority", "AU", 2, render=lambda v: Text(str(v)), drop=6),
        time_column("observed_at", "OBSERVED", drop=2),
        Column("marks", "MRK", 3, render=lambda v: Text(badges(v), style="bold yellow")),
    ]


@screen(ScreenSpec(
    "beliefs", "Beliefs", 1, view_time=True, table="tui_beliefs", rows=("tui_beliefs_source", "tui_beliefs_all"),
    patch_rows=("tui_beliefs_source", "tui_beliefs_patch_forget",
                Shift("patch_shift_moves", "tui_beliefs_shift_range", "tui_beliefs_patch_shift"),
                "tui_beliefs_patch_take"),
    count=True, actions=("quarantine", "retract", "expire", "erase"),
    empty="No beliefs in this view: nothing active is believed here (try another context, "
          "as-of time, or clear the filter).",
    short="Beliefs"))
class BeliefsScreen(InspectorScreen):
    # Keys the fields read themselves (TypedInput), not bindings: listed in the help as well.
    HELP_KEYS = [("tab shift+tab", "the next (previous) field: filter, context, as-of, valid-at"),
                 ("enter", "in context, as-of or valid-at: apply it")]
    BINDINGS = [
        Binding("slash", "focus('#filter')", "filter", id="beliefs.filter"),
        Binding("c", "focus('#context')", "context", id="beliefs.context"),
        Binding("t", "focus('#as-of')", "as-of", id="beliefs.as_of"),
    ]

    def body(self) -> ComposeResult:
        with Horizontal(id="controls"):
            yield TypedInput(placeholder="filter: entity, attribute, value, source, id", id="filter")
            yield TypedInput(placeholder="context: (each scope)", id="context")
            yield TypedInput(placeholder="as of: now", id="as-of")
            yield TypedInput(placeholder="valid at: = as of", id="valid-at")
        yield Static(id="legend", classes="hint")
        with Horizontal(id="main"):
            yield VirtualTable(belief_columns(), key="row_key", id="beliefs", sortable=True,
                               empty=self.SPEC.empty, id_field="memory_id")
            yield DetailPane(id="detail")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#detail", DetailPane).clear("loading the store …")
        self.query_one("#beliefs", VirtualTable).focus()

    def on_resize(self) -> None:
        super().on_resize()
        self.query_one("#legend", Static).update(legend(self.size.width - 2), layout=False)

    def refresh_data(self) -> None:
        table = self.query_one("#beliefs", VirtualTable)
        want = "scope" if self.app.session.spec.context is None else "belief_scope"
        if not any(c.key == want for c in table.columns):
            table.swap_column("belief_scope" if want == "scope" else "scope", scope_column(want))
        table.load(self.source(), keep_cursor=True)

    def filtered(self) -> bool:
        return bool(self.app.session.needle) or super().filtered()

    # -- filter, context, time ----------------------------------------------------------------

    # The filter text typed and not yet taken (None: taken), then the table's load that
    # shows its rows: an action key read before those rows are on screen would act on a row
    # the filter is about to hide (helper-67 #2: "/ M10 esc Q" in one burst quarantined the
    # row the cursor had been on, which the filter hides).
    _filter_pending: str | None = None
    _filter_load = 0

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._filter_pending = event.value
        self._refilter(event.value)

    def pending_change(self) -> str | None:
        if self._filter_pending is None and \
                self.query_one("#beliefs", VirtualTable).shows_load(self._filter_load):
            return super().pending_change()
        typed = self.query_one("#filter", Input).value
        return render(f"The filter {typed!r} is still being applied: the rows it leaves are not "
                      "shown yet. Press the key again once they are.", one_line=True)

    @work(thread=True, exclusive=True, group="belief-filter")
    def _refilter(self, text: str) -> None:
        time.sleep(0.12)                    # debounce: the newest keystroke's worker wins
        session = self.app.session
        try:
            if session.store is None:
                # Typed while the store opens: the build of the screens' rows that follows
                # filters by it (the box showed text the rows were not filtered by). Set first,
                # then the store looked at again: a build in between has read it, or has not
                # made the rows.
                session.needle = text.lower()
                if session.store is None:
                    return
            count = session.refilter(text)
            self.app.call_from_thread(self._filtered, count)
        finally:
            self.app.call_from_thread(self._filter_applied, text)

    def _filtered(self, count: int) -> None:
        """The filter applied: the tab counts the rows it leaves, and the table shows them (not
        when the screen was taken down meanwhile: the app is closing)."""
        self.app.set_count(self.SPEC.name, count)
        if self.query("#beliefs"):
            self.refresh_data()

    def _filter_applied(self, text: str) -> None:
        """The newest text typed has been taken: actions wait for the table's load that
        follows (_filtered's) to show its rows, no longer."""
        if text == self._filter_pending and self.query("#beliefs"):
            self._filter_pending = None
            self._filter_load = self.query_one("#beliefs", VirtualTable).load_generation

    @on(Input.Submitted, "#filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        self.query_one("#beliefs", VirtualTable).focus()

    _entered = False        # enter_leaves applied the view: the Submitted that follows is done

    def enter_leaves(self, field: Input) -> bool:
        """Enter leaves the field for the table (TypedInput sends the keys typed after it to
        the table and the app, as after an escape): the filter's always; the context's, the
        as-of's and the valid-at's when the view they name applies, applied now ("t", a time,
        enter, "c", a context, enter in one burst typed the context into the as-of field). A
        field refused keeps the focus, and the Submitted that follows says why."""
        if field.id == "filter":
            return True
        if field.id not in ("context", "as-of", "valid-at"):
            return False
        self._entered = self._apply_view(say=False)
        return self._entered

    @on(Input.Submitted, "#context, #as-of, #valid-at")
    def _view_changed(self, event: Input.Submitted) -> None:
        if self._entered:
            self._entered = False
        elif not self._apply_view(say=True):
            return
        self.query_one("#beliefs", VirtualTable).focus()

    def _apply_view(self, say: bool) -> bool:
        """Set the view the context, as-of and valid-at fields name; False when one of them
        cannot be (said, if `say`)."""
        values = {}
        for name in ("as-of", "valid-at"):
            text = self.query_one(f"#{name}", Input).value.strip()
            try:
                values[name] = parse_time(text) if text else None
            except ValueError as exc:
                # The message quotes what was typed: never markup ("[/oops]" crashed the app).
                if say:
                    self.notify(render(f"{name}: {exc}", one_line=True), severity="error",
                                markup=False)
                return False
        context = self.query_one("#context", Input).value.strip() or None
        if (why := scope_filter_error(context, "context")) is not None:
            if say:
                self.notify(render(why, one_line=True), severity="error", markup=False)
            return False
        self.app.session.set_view(context, values["as-of"], values["valid-at"])
        self.app.set_status(context=context,
                            as_of=format_time(values["as-of"]) if values["as-of"] else None,
                            valid_at=format_time(values["valid-at"]) if values["valid-at"] else None)
        self.app.rebuild_view()
        return True

    def applied_fields(self) -> list[tuple[str, str, str, object]]:
        """The view's fields (helper-62: "yesterday" stayed in the as-of field while the rows
        were now's); a time spelled otherwise is the same time."""
        status = self.app.status
        return [("context", status.context or "", f"the view is at {status.context or 'each scope'}",
                 None),
                ("as-of", status.as_of or "", f"the view is at {status.as_of or 'now'}", _same_time),
                ("valid-at", status.valid_at or "", f"the view is at {status.valid_at or 'now'}",
                 _same_time)]

    # -- the selected row and jumps -------------------------------------------------------------

    def show_row(self, row) -> None:
        self.load_detail(row["memory_id"], row["scope"])

    @on(VirtualTable.Chosen)
    def _chosen(self, event: VirtualTable.Chosen) -> None:
        if event.row is not None:
            self.open_row(event.row)

    def show_jumped(self, memory_id: str) -> None:
        self.query_one(DetailPane).expect(memory_id)
        self.show_entry(memory_id)

    @work(thread=True, exclusive=True, group="detail")
    def show_entry(self, memory_id: str) -> None:
        """Move to the belief row of `memory_id`, or show its detail when it has none."""
        detail = self.app.session.detail(memory_id, None)
        pane = self.query_one("#detail", DetailPane)
        if detail is None:
            self.app.call_from_thread(self._gone, pane, memory_id)
            return
        table = self.query_one("#beliefs", VirtualTable)
        ordered = table.sort is not None or table.narrow is not None
        row = self.app.session.find_belief(memory_id, detail.context, ordered)
        if row is not None and row != table.cursor_row:
            self.app.call_from_thread(table.move_cursor, row)
        elif row is not None and table.row_at(row) is not None:
            self.app.call_from_thread(self.show_row, table.row_at(row))
        else:
            self.app.call_from_thread(pane.show, detail)
        self.app.call_from_thread(table.focus)
