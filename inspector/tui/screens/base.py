"""What every screen has: the header, the bar of screens, the key bar, and the curation actions
its spec offers (bound by `screens.screen`, removed in read-only mode, disabled while a write is
pending); the rows it pages (sorted or narrowed as the operator asks), what is selected, and
the detail pane's entry with the jumps walked back and forward."""

from __future__ import annotations

import threading

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import get_current_worker

from ...present.text import render
from ...store.registry import available
from ..spec import ScreenSpec, Status
from ..widgets.detail import DetailPane
from ..widgets.header import ModeBar, StoreHeader
from ..widgets.keybar import KeyBar
from ..widgets.virtual_table import VirtualTable


LINEAGE_GRACE_S = 0.03   # paint once if the lineage is ready this soon, else in two steps
NARROW = 120             # below this many columns the detail pane goes under the table
PANE_SIZES = ("", "-wide", "-hidden")
MARKS_NAMED = 5          # a notice about marked rows that left names this many of them


# How long a sort or narrowing may wait for the load it asks for before action keys are taken
# again without it (settle_unloaded_order).
ORDER_LOAD_WAIT_S = 1.0


class InspectorScreen(Screen):
    SPEC: ScreenSpec          # set by the `screen` decorator
    BINDINGS = [
        Binding("escape", "leave_input", "leave the field for the table; on the table, show "
                "every row again after F or the Overview narrowed it", show=False,
                id="screen.leave_input"),
        Binding("l", "lineage", "lineage", id="detail.lineage"),
        Binding("d", "pane_size", "detail pane", id="detail.size"),
        Binding("less_than_sign", "back", "back", id="detail.back"),
        Binding("greater_than_sign", "forward", "forward", show=False, id="detail.forward"),
        Binding("ctrl+r", "reveal", "reveal secret", show=False, id="detail.reveal"),
    ]

    def compose(self) -> ComposeResult:
        yield StoreHeader(view_time=self.SPEC.view_time)
        yield ModeBar(self.SPEC.name)
        yield from self.body()
        yield KeyBar()

    def body(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        if self.app.session.read_only:
            # marks only choose what an action (or b) acts on: read-only has none to offer
            for table in self.query(VirtualTable):
                table.markable = False
        self.watch(self.app, "status", self._show_status)
        self._history: list[str] = []      # entries the pane showed before a jump (back)
        self._future: list[str] = []       # and after (forward)
        self._pane_size = 0
        # The cursor row, the table's highlight count and the row's key when a jump pointed
        # the pane away from the cursor's entry (a rival, a lineage node); None while the pane
        # follows the cursor. Any move since, even back to the same row, means the cursor's
        # row again; a reload that leaves the cursor on that row does not (_jump_kept).
        self._jumped_at: tuple[int, int, str | None] | None = None

    def _show_status(self, status: Status) -> None:
        self.query_one(StoreHeader).show(status)
        self.query_one(ModeBar).show(status)

    def on_resize(self) -> None:
        self.set_class(self.size.width < NARROW, "-narrow")

    loaded_generation = -1

    def on_screen_resume(self) -> None:
        if self.app.session.store is not None and self.loaded_generation != self.app.generation:
            self.reload()

    def reload(self) -> None:
        self.loaded_generation = self.app.generation
        if getattr(self.app, "outside_change", False):
            # Another process changed the log: the tables say so if the cursor's row leaves.
            for table in self.query(VirtualTable):
                table.watch_left = True
        self.refresh_data()

    @on(VirtualTable.CursorRowLeft)
    def _cursor_row_left(self, event: VirtualTable.CursorRowLeft) -> None:
        """The cursor's row left this table in a change another process made: say so, and
        where the cursor is now (helper-72: it moved to a neighbour without a word, and the
        next action key would act on that one)."""
        event.stop()
        now = "" if event.now is None else f"; the cursor is on {event.now} now"
        self.notify(render(f"{event.key} is no longer in this table (another process changed "
                           f"the log){now}.", one_line=True), severity="warning", timeout=10,
                    markup=False)

    def refresh_data(self) -> None:
        """Reload what this screen shows from the store (after a load, a write, live lines)."""

    # -- what the bindings may do ----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "act":
            name = parameters[0]
            allowed = {a.name for a in available(self.app.session.read_only)}
            if name not in self.SPEC.actions or name not in allowed:
                return False
            if self.app.pending_write or self.app.session.store is None:
                return None
        if action in ("lineage", "pane_size", "back", "forward", "reveal"):
            return bool(self.query(DetailPane))
        return True

    # -- the table ------------------------------------------------------------------------

    def main_table(self) -> VirtualTable | None:
        tables = [t for t in self.query(VirtualTable) if t.display]
        return tables[0] if tables else None

    def source(self):
        """What the screen's table pages: its spec's table, in the order the operator asked."""
        table = self.main_table()
        return self.app.session.table_source(
            self.SPEC.table, screen=self.SPEC.name, sort=table.sort if table else None,
            narrow=table.narrow if table else None, decorate=self.decorate)

    decorate = None           # a function that adds fields to each fetched row (Review)

    @on(VirtualTable.OrderChanged)
    def _order_changed(self, event: VirtualTable.OrderChanged) -> None:
        event.stop()
        self.refresh_data()
        # A screen that could not load the table again (or loads it from a worker that has
        # not started yet) must not hold action keys for good: a second on, with no load
        # asked for, they are taken again.
        self.set_timer(ORDER_LOAD_WAIT_S, event.table.settle_unloaded_order)

    @on(VirtualTable.FrequenciesAsked)
    def _frequencies(self, event: VirtualTable.FrequenciesAsked) -> None:
        event.stop()
        if self.app.session.store is None:
            # counted on no store, the app ended with a traceback
            self.notify("The store is still opening: F counts a column's values once it is "
                        "open.", severity="warning", timeout=4)
            return
        self._count_values(event.table, event.column)

    @work(thread=True, exclusive=True, group="frequencies")
    def _count_values(self, table: VirtualTable, column) -> None:
        from ..modals.frequencies import FrequencyModal
        rows = self.frequency_source(table).frequencies(column.key)
        # A time as the table's column shows it (its year in the header, seconds where rows
        # have them): the format the table measured.
        span = table.column_layout.span(column) if column.time else None
        self.app.call_from_thread(
            self.app.push_screen, FrequencyModal(column, rows, span),
            lambda chosen: chosen is not None and table.set_narrow((column.key, chosen["value"])))

    def frequency_source(self, table: VirtualTable):
        """Where a column's value counts come from: the table's rows before any narrowing."""
        return self.app.session.table_source(self.SPEC.table, screen=self.SPEC.name)

    @on(VirtualTable.CopyAsked)
    def _copy(self, event: VirtualTable.CopyAsked) -> None:
        event.stop()
        memory_id = str(event.row.get(event.table.id_field) or "")
        shown = render(memory_id, one_line=True, edges=True)
        if shown != memory_id:
            # Its drawn form is another text, which may be another entry's exact id (`Q\u200b`
            # copied for `Q` + a zero-width space named the entry `Q\u200b`: helper-74), and the
            # id itself would paste characters a terminal does not show: nothing is copied.
            self.notify(f"{shown} not copied: the id holds characters drawn as escapes, and "
                        "pasted, either form could name another entry; act on it here",
                        markup=False, severity="warning", timeout=8)
            return
        self.app.copy_to_clipboard(memory_id)
        self.notify(f"copied {memory_id}", markup=False, timeout=3)

    @on(VirtualTable.MarksChanged)
    def _marks_changed(self, event: VirtualTable.MarksChanged) -> None:
        self.query_one(KeyBar).marks = event.count
        if event.changed:
            # Marked to act on what the row read then: an action must not take what it reads
            # now unread (the dialog lists it among the others, one line of many).
            named = _named(event.changed)
            one = len(event.changed) == 1
            self.notify(f"{len(event.changed)} marked {'row was' if one else 'rows were'} "
                        f"changed by another process since you marked {'it' if one else 'them'}: "
                        f"{named}. Unmarked: read {'it' if one else 'them'}, then mark again.",
                        markup=False, severity="warning", timeout=10)
        if event.dropped:
            # Which rows: the operator marked them to act on them, and must know which were not.
            named = _named(event.dropped)
            self.notify(f"{len(event.dropped)} marked {'row has' if len(event.dropped) == 1 else 'rows have'} "
                        f"left the table (changed by another process, or no longer shown): {named}. "
                        "Unmarked.", markup=False, timeout=10)

    def clear_marks(self) -> int:
        table = self.main_table()
        return table.clear_marks() if table is not None else 0

    @on(VirtualTable.Loaded)
    def _loaded(self, event: VirtualTable.Loaded) -> None:
        """A narrowed main table: its tab says how many rows it shows of how many."""
        if event.table is self.main_table() and self.SPEC.count:
            self.app.set_narrowed(self.SPEC.name,
                                  None if event.table.narrow is None else event.count)

    @on(VirtualTable.Highlighted)
    def _cursor_moved(self, event: VirtualTable.Highlighted) -> None:
        if self._jump_kept(event):
            return
        self._jumped_at = None
        panes = self.query(DetailPane)
        if not panes:
            return
        if event.row is not None:
            self.show_row(event.row)
        elif event.table.row_count == 0:
            panes.first().clear(event.table.empty if event.table.narrow is None else "")

    def _jump_kept(self, event: VirtualTable.Highlighted) -> bool:
        """Rows another process changed, the cursor still on the row it was on at the jump:
        the pane stays on the entry jumped to, and actions with it (a live append sent the
        pane back to the table's row, and Q to that row's entry, without a word: helper-59).
        The entry jumped to is read again (the append may have changed it)."""
        jumped, table = self._jumped_at, event.table
        if jumped is None or not event.reloaded:
            return False
        if event.row is not None and table.row_key(event.index) != jumped[2]:
            return False
        self._jumped_at = (table.cursor_row, table.highlights, jumped[2])
        target = self.query_one(DetailPane).target
        if event.row is not None and target is not None:
            self.load_detail(target, None)
        return True

    def show_row(self, row) -> None:
        """The detail of a table row (Beliefs judges it in the row's context)."""
        self.load_detail(row["memory_id"], None)

    def open_row(self, row) -> None:
        """Enter on a row of a table of entries: the row's detail pane, shown again if d hid
        it and pointed back at the row if a jump took it away, with the focus, so that it
        scrolls and j, k and enter follow its rivals and lineage (esc goes back to the table)."""
        if PANE_SIZES[self._pane_size] == "-hidden":
            self.action_pane_size()         # hidden is the last size: round to as laid out
        if self._jumped_at is not None:
            self._jumped_at = None
            self.show_row(row)
        self.query_one(DetailPane).focus()

    # -- the detail pane --------------------------------------------------------------------

    def load_detail(self, memory_id: str, context: str | None) -> None:
        self.query_one(DetailPane).expect(memory_id)
        self._load_detail(memory_id, context)

    @work(thread=True, exclusive=True, group="detail")
    def _load_detail(self, memory_id: str, context: str | None) -> None:
        self._detail_in_two_steps(memory_id, context)

    def _detail_in_two_steps(self, memory_id: str, context: str | None) -> None:
        """Worker thread: the entry, its rivals and history, then its lineage. When the lineage
        comes quickly the pane is painted once; otherwise the first half is shown at once and
        the lineage when it arrives. A newer cursor move cancels this worker: nothing stale is
        shown."""
        worker = get_current_worker()
        detail = self.app.session.detail(memory_id, context, with_lineage=False)
        panes = self.query(DetailPane)      # none while the screen is being taken down
        if worker.is_cancelled or not panes:
            return
        pane = panes.first()
        if detail is None:
            self.app.call_from_thread(self._gone, pane, memory_id)
            return
        shown = False
        lineage = threading.Thread(target=self.app.session.add_lineage, args=(detail,))
        lineage.start()
        lineage.join(LINEAGE_GRACE_S)
        if lineage.is_alive():
            if worker.is_cancelled:
                return
            self.app.call_from_thread(pane.show, detail)
            shown = True
            lineage.join()
        if worker.is_cancelled:
            return
        self.app.call_from_thread(pane.show_lineage if shown else pane.show, detail)

    def _gone(self, pane: DetailPane, memory_id: str) -> None:
        if pane.expected == memory_id:
            pane.clear(f"{render(memory_id, one_line=True)} is not in the loaded store.")

    def jump_to(self, memory_id: str) -> None:
        """A jump from the pane (enter on a rival or a lineage node), taken at once (the pane
        calls it): remembered for back, and the pane pointed at the entry."""
        current = self.query_one(DetailPane).target
        if current is not None and current != memory_id:
            self._history.append(current)
            self._future.clear()
        self.go_to(memory_id)

    def go_to(self, memory_id: str) -> None:
        """Point the pane at `memory_id`, away from the cursor's entry until the cursor moves
        (a jump that moves the cursor to the entry's row, as Beliefs' may, follows it again)."""
        table = self.main_table()
        self._jumped_at = None if table is None else \
            (table.cursor_row, table.highlights, table.row_key(table.cursor_row))
        self.show_jumped(memory_id)

    def show_jumped(self, memory_id: str) -> None:
        """Show `memory_id` in the pane (Beliefs also moves its cursor to the entry's row)."""
        self.load_detail(memory_id, None)

    def action_back(self) -> None:
        self._walk(self._history, self._future, "back")

    def action_forward(self) -> None:
        self._walk(self._future, self._history, "forward")

    def _walk(self, source: list[str], other: list[str], way: str) -> None:
        if not source:
            self.notify(f"Nothing to go {way} to: enter on a rival or a lineage node jumps.",
                        timeout=3)
            return
        current = self.query_one(DetailPane).target
        if current is not None:
            other.append(current)
        self.go_to(source.pop())

    def action_lineage(self) -> None:
        self.query_one(DetailPane).focus_lineage()

    def action_reveal(self) -> None:
        if not self.query_one(DetailPane).reveal():
            self.notify("The entry in the detail pane holds no masked value.", timeout=3)

    def action_pane_size(self) -> None:
        """The detail pane: as laid out, wider, hidden; and round again."""
        main = self.query_one("#main")
        self._pane_size = (self._pane_size + 1) % len(PANE_SIZES)
        for size in PANE_SIZES[1:]:
            main.set_class(PANE_SIZES[self._pane_size] == size, size)
        if PANE_SIZES[self._pane_size] != "-hidden":
            return
        table = self.main_table()
        if self.focused is self.query_one(DetailPane) and table is not None:
            table.focus()
        if self._jumped_at is not None and table is not None:
            # A hidden pane shows no entry jumped to: the action keys go back to the row the
            # table highlights (they acted on the entry jumped to, off screen: helper-75).
            self._jumped_at = None
            row = table.row_at(table.cursor_row)
            if row is not None:
                self.show_row(row)

    def applied_fields(self) -> list[tuple[str, str, str, object]]:
        """The screen's fields that apply on enter, each as (id, the text the screen is at,
        where it is, in words, a test of two texts naming the same thing or None)."""
        return []

    def action_leave_input(self) -> None:
        """Escape: out of any input or the detail pane, back to the screen's table (digits
        switch screens again); on the table itself, it shows every row again after a narrowing.
        The focus moves now, not after a refresh (table.focus() waits for one): keys of the same
        burst already queued behind the escape ("t", escape, "4": the 4 was handed round the app
        while the as-of field still had the focus, and the field swallowed it) are then read by
        the table and the app, as if typed slowly. A field that applies on enter, left with
        text that was not applied (refused, or never entered), shows what is applied again, and
        a notice says so (applied_fields)."""
        for name, applied, where, same in self.applied_fields():
            field = self.query_one(f"#{name}", Input)
            typed = field.value.strip()
            if typed == applied or (same is not None and same(typed, applied)):
                continue
            field.value = applied
            self.notify(render(f"{name} {typed!r} was not applied (enter applies it): {where}",
                               one_line=True), severity="warning", markup=False)
        table = self.main_table()
        if table is None:
            self.set_focus(None)
        elif self.focused is table and table.narrow is not None:
            table.set_narrow(None)
        else:
            self.set_focus(table)

    # -- actions --------------------------------------------------------------------------

    def pending_change(self) -> str | None:
        """Why an action must wait (a change the operator typed that the table does not show
        yet), or None: a sort or a narrowing whose rows are not on screen yet (helper-72:
        `] j a` in one burst opened the dialog on a row the new order had not shown)."""
        table = self.main_table()
        if table is not None and not table.order_settled:
            return ("The table is being sorted or narrowed: its rows in the new order are not "
                    "shown yet. Press the key again once they are.")
        return None

    def action_act(self, name: str) -> None:
        if (why := self.pending_change()) is not None:
            self.notify(why, severity="warning", markup=False)
            return
        ids = self.selected_ids()
        if not ids:
            self.notify("Nothing selected: move the cursor to an entry or mark some with space.",
                        severity="warning")
            return
        table = self.main_table()
        narrow = table.narrow if table is not None else None      # read here, not in the worker
        self.app.start_action(name, ids, lambda affected: self.visible_ids(affected, narrow),
                              filtered=self.filtered())

    def narrow_to(self, field: str, value: str | None) -> None:
        """Show only the rows whose column `field` holds `value` (the Overview's narrowing;
        escape on the table shows every row again); None: every row."""
        table = self.main_table()
        if table is not None:
            table.set_narrow(None if value is None else (field, value))
            table.focus()

    def filtered(self) -> bool:
        """Whether a filter hides rows of the table (the plan says how many it hides)."""
        table = self.main_table()
        return table is not None and table.narrow is not None

    def selected_ids(self) -> list[str]:
        """The marked rows' entries; else, when a jump pointed the detail pane at another entry
        and the cursor has not moved since, that entry; else the entry under the cursor, read
        from the table itself: an action key typed in the same burst as the keys that moved
        the cursor runs before the pane hears of the move, and must act on the row the
        operator sees highlighted, never on the one the cursor left. Nothing while the
        cursor's row is still being fetched."""
        table = self.main_table()
        if table is None:
            return []
        marked = table.marked_rows()
        if marked:
            return sorted({row["memory_id"] for row in marked})
        panes = self.query(DetailPane)
        target = panes.first().target if panes else None
        if target is not None and self._jumped_at is not None \
                and self._jumped_at[:2] == (table.cursor_row, table.highlights):
            return [target]
        row = table.row_at(table.cursor_row)
        return [row["memory_id"]] if row is not None else []

    def visible_ids(self, ids: list[str], narrow: tuple[str, str | None] | None = None) -> set[str]:
        """Which of `ids` this screen shows (the plan says how many it does not), the table's
        narrowing (F: `narrow`) counted: marked rows it hides were acted on without a word
        (helper-67 #7); worker thread."""
        shown = self.app.session.visible(self.SPEC, ids)
        if narrow is None or not shown:
            return shown
        return shown & self.app.session.visible_narrowed(self.SPEC, sorted(shown), narrow)


def _named(keys: tuple[str, ...]) -> str:
    """Table rows by their keys as the operator knows them, the first MARKS_NAMED of them."""
    shown = [_row_named(str(key)) for key in keys[:MARKS_NAMED]]
    more = len(keys) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def _row_named(key: str) -> str:
    """A table row's key as the operator knows the row: its id, and the scope of a belief row
    (whose key is the id and the scope, joined by a unit separator: tui_beliefs_source)."""
    memory_id, _, scope = key.partition(chr(31))
    shown = render(memory_id, one_line=True)
    return f"{shown} (in {render(scope, one_line=True)})" if scope else shown
