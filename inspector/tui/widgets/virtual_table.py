"""A table that pages its rows from a data source instead of holding them.

Every list on screen (beliefs, the review queue, findings, the audit log …)
can be millions of rows, so the table is a line-rendering `ScrollView` as tall
as the row count that asks a `RowSource` for pages of rows, keeps the last
MAX_PAGES pages in an LRU, and draws rows it has not fetched yet as a dim
placeholder (DESIGN §9: the widget never holds the whole store; the UI never
blocks on a query). Counting and fetching run in thread workers that post
their rows back; one lock per table makes sure a source is only ever called
from one thread at a time. On `load()` the old rows stay on screen until the
new source has counted and fetched the rows around the view, then both swap at
once (no flash of placeholders on every live reload).

Line 0 is the header; it does not scroll. Row `i` is drawn on line
`i - scroll_offset.y + 1`, so the virtual height is the row count plus one.
Cell values are untrusted: each goes through its column's `render` (by default
the one sanitizer, `inspector.tui.text.safe`) and is never parsed as markup.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import ClassVar, Mapping

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, on, work
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from inspector.present.text import render

from .columns import GUTTER, MIN_SHARED_WIDTH, Column, Layout, Measures
from .rows import Row, RowSource, _as_text, _PageCache, _PageRequests, _safe_one_line, cell_segments

MARK_GLYPH = "●"
PLACEHOLDER = "…"
ANCHOR_AFTER = 8   # rows after the cursor a reload may put it on, when its own row left


class _RowMessage(Message):
    """A message about the row at `index` (`row` is None if not fetched yet)."""

    def __init__(self, table: VirtualTable, index: int, row: Row | None) -> None:
        super().__init__()
        self.table, self.index, self.row = table, index, row

    @property
    def control(self) -> VirtualTable:
        return self.table


class VirtualTable(ScrollView, can_focus=True):
    """A table over a `RowSource` that holds only the pages near the view."""

    # Bumped whenever the row under the cursor may have changed (a move, new rows), at once,
    # before the Highlighted message it posts is handled: what a screen compares to know that
    # the highlighted row is not the one it last pointed its detail pane from.
    highlights = 0

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "up", show=False),
        Binding("down,j", "cursor_down", "down", show=False),
        Binding("pageup", "page_up", "page up", show=False),
        Binding("pagedown", "page_down", "page down", show=False),
        Binding("home,g", "cursor_first", "first row", show=False),
        Binding("end,G", "cursor_last", "last row", show=False),
        Binding("space", "toggle_mark", "mark", id="table.mark"),
        Binding("enter", "choose", "open", id="table.open"),
        Binding("left", "column(-1)", "column left", show=False, id="table.column_left"),
        Binding("right", "column(1)", "column right", show=False, id="table.column_right"),
        Binding("left_square_bracket", "sort(False)", "sort ascending by the column", show=False,
                id="table.sort_ascending"),
        Binding("right_square_bracket", "sort(True)", "sort descending by the column", show=False,
                id="table.sort_descending"),
        Binding("F", "frequencies", "value frequencies of the column", show=False,
                id="table.frequencies"),
        Binding("y", "copy_id", "copy the id", show=False, id="table.copy"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-table--header",
        "virtual-table--cursor",
        "virtual-table--marked",
        "virtual-table--placeholder",
        "virtual-table--column",
    }
    DEFAULT_CSS = """
    VirtualTable {
        height: 1fr;
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-gutter: stable;
        &:focus { background-tint: $foreground 5%; }
        & > .virtual-table--header { background: $panel; color: $foreground; text-style: bold; }
        & > .virtual-table--marked { background: $accent 25%; }
        & > .virtual-table--placeholder { color: $text-disabled; text-style: dim; }
        & > .virtual-table--column { text-style: bold underline; }
        & > .virtual-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .virtual-table--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
    }
    """
    MAX_PAGES: ClassVar[int] = 20
    STRIP_CACHE_SIZE: ClassVar[int] = 400

    class Highlighted(_RowMessage):
        """The cursor moved, or the row under it arrived from a fetch. `reloaded`: not a move
        of the operator's, but a new source (rows another process changed) or its row."""

        reloaded = False

    class Chosen(_RowMessage):
        """Enter (or a double click) on a row."""

    class OrderChanged(_RowMessage):
        """The operator sorted the table or narrowed it to one value: load it again."""

    class FrequenciesAsked(Message):
        """Shift+F on a column: show its values with their counts."""

        def __init__(self, table: VirtualTable, column: Column) -> None:
            super().__init__()
            self.table, self.column = table, column

        @property
        def control(self) -> VirtualTable:
            return self.table

    class CopyAsked(_RowMessage):
        """y on a row: copy its id."""

    class MarksChanged(Message):
        """The marks changed (toggled, cleared, or dropped because their rows left, or
        another process changed them since they were marked)."""

        def __init__(self, table: VirtualTable, count: int, dropped: tuple[str, ...] = (),
                     changed: tuple[str, ...] = ()) -> None:
            super().__init__()
            self.table, self.count, self.dropped = table, count, dropped   # dropped: their keys
            self.changed = changed                # dropped because their rows read otherwise now

        @property
        def control(self) -> VirtualTable:
            return self.table

    class CursorRowLeft(Message):
        """A load asked to watch (`watch_left`: another process changed the log) no longer
        holds the cursor's row: the cursor moved to another (`now`: its key, or None)."""

        def __init__(self, table: VirtualTable, key: str, now: str | None) -> None:
            super().__init__()
            self.table, self.key, self.now = table, key, now

        @property
        def control(self) -> VirtualTable:
            return self.table

    class Loaded(Message):
        """A source finished counting and its first rows are on screen."""

        def __init__(self, table: VirtualTable, count: int) -> None:
            super().__init__()
            self.table, self.count = table, count

        @property
        def control(self) -> VirtualTable:
            return self.table

    class _Counted(Message, bubble=False):
        def __init__(self, generation: int, source: RowSource, count: int,
                     pages: dict[int, list[Row]], keep_cursor: bool, measures: Measures | None,
                     present: Mapping[str, Row] | None) -> None:
            super().__init__()
            self.generation, self.source, self.count = generation, source, count
            self.pages, self.keep_cursor = pages, keep_cursor
            self.measures, self.present = measures, present

    class _PageFetched(Message, bubble=False):
        def __init__(self, requests: _PageRequests, page: int, rows: list[Row]) -> None:
            super().__init__()
            self.requests, self.page, self.rows = requests, page, rows

    class _Failed(Message, bubble=False):
        def __init__(self, error: Exception) -> None:
            super().__init__()
            self.error = error

    def __init__(self, columns: list[Column], *, key: str | None = None, page_size: int = 200,
                 sortable: bool = False, empty: str = "", id_field: str | None = None,
                 markable: bool = True, choosable: bool = True,
                 name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns, self.key, self.page_size = list(columns), key, page_size
        self.sortable = sortable      # a column cursor (left/right), sort, frequencies
        self.empty = empty            # what an empty table says it is for
        self.id_field = id_field      # the field `y` copies
        self.markable = markable      # space marks rows (a table no action reads marks of: not)
        self.choosable = choosable    # enter opens a row (a table with nothing to open: not)
        self.column_layout = Layout(self.columns)
        self._column = 0                                    # the column cursor (sortable)
        self._loaded = False
        self._pages = _PageCache(page_size, self.MAX_PAGES)
        self._strips: LRUCache[tuple, Strip] = LRUCache(self.STRIP_CACHE_SIZE)
        self._styles: dict[tuple[str, bool], Style] = {}
        self._requests: _PageRequests | None = None
        self._source_lock = threading.Lock()  # one source call at a time, across loads
        self._generation = 0
        self._shown_generation = 0      # the load whose rows are on screen (or that failed)
        # A sort or a narrowing asked for and the load that shows its rows: until they are on
        # screen, the rows shown are in the old order (order_settled).
        self._order_pending = False
        self._order_load = 0
        self._order_asked = 0           # the load number when it was asked for
        # The next load says so when the cursor's row is gone (CursorRowLeft): set by the
        # screen before a reload for another process's change; the load that watches.
        self.watch_left = False
        self._watch: tuple[int, str | None, str | None] = (-1, None, None)   # load, key, id shown
        self._pending_load: tuple[RowSource, bool] | None = None
        self._row_count = self._cursor = 0
        self._marked: dict[str, Row] = {}   # key -> the row as it was when marked
        self._window = (0, -1)  # pages worth fetching (viewport ± 1); read by workers
        self._awaiting_cursor_row = False
        self._width = 0  # content width, measured at the start of each render pass

    # -- public API --------------------------------------------------------

    @property
    def row_count(self) -> int:
        return self._row_count

    @property
    def cursor_row(self) -> int:
        return self._cursor

    @property
    def marked(self) -> frozenset[str]:
        return frozenset(self._marked)

    def marked_rows(self) -> list[Row]:
        """The marked rows, in the order they were marked."""
        return list(self._marked.values())

    def row_key(self, index: int) -> str | None:
        """The key of the row at `index` (its `key` field, else its index), None if not fetched."""
        row = self.row_at(index)
        return None if row is None else self._key_of(row, index)

    def row_at(self, index: int) -> Row | None:
        """The row at `index` if it is cached, else None (never fetches)."""
        return self._pages.row(index) if 0 <= index < self._row_count else None

    def clear_marks(self) -> int:
        """Drop every mark; returns how many there were."""
        count = len(self._marked)
        self._marked.clear()
        self._strips.clear()
        self.refresh()
        if count:
            self.post_message(self.MarksChanged(self, 0))
        return count

    @property
    def sort(self) -> tuple[str, bool] | None:
        """(column key, descending), or None: the source's own order."""
        return self.column_layout.sort

    @sort.setter
    def sort(self, sort: tuple[str, bool] | None) -> None:
        self.column_layout.sort = sort

    @property
    def narrow(self) -> tuple[str, str | None] | None:
        """(column key, value as text): only the rows holding it; None: every row."""
        return self.column_layout.narrow

    @narrow.setter
    def narrow(self, narrow: tuple[str, str | None] | None) -> None:
        self.column_layout.narrow = narrow

    @property
    def current_column(self) -> Column:
        shown = self._shown_columns()
        return shown[min(self._column, len(shown) - 1)] if shown else self.columns[0]

    def column_named(self, key: str) -> Column:
        return next(c for c in self.columns if c.key == key)

    def load(self, source: RowSource, *, keep_cursor: bool = True) -> None:
        """Show `source` instead; the old rows stay on screen until it has
        counted and fetched the rows around the view."""
        self._generation += 1
        if self._order_pending:
            self._order_pending, self._order_load = False, self._generation
        watched = shown = None
        if self.watch_left and keep_cursor and self.key:
            row = self.row_at(self._cursor)
            if row is not None:
                watched, shown = self._key_of(row, self._cursor), self._id_of(row)
        elif self._watch[1] is not None and not self.shows_load(self._watch[0]):
            _, watched, shown = self._watch     # a newer load in place of the watching one
        self.watch_left = False
        self._watch = (self._generation, watched, shown)
        if self._requests is not None:
            self._requests.close()
            self._requests = None
        if not self.is_mounted:
            self._pending_load = (source, keep_cursor)
            return
        top = self.scroll_offset.y if keep_cursor else 0
        cursor = self._cursor if keep_cursor else 0
        margin = self.page_size // 4  # room for a row that moved a little
        first = max(0, min(top, cursor - margin))
        last = max(top + self._visible_rows - 1, cursor + margin)
        pages = range(first // self.page_size, last // self.page_size + 1)
        asked = list(self._marked) if self.key else []
        if watched is not None and watched not in self._marked:
            asked.append(watched)
        self._count_and_fetch(source, self._generation, keep_cursor, pages, asked)

    @property
    def load_generation(self) -> int:
        """The number of the newest load asked for (load())."""
        return self._generation

    @property
    def order_settled(self) -> bool:
        """Whether the rows on screen are in the order (and narrowing) last asked for: after a
        sort or a narrowing, not until the load that follows shows its rows."""
        return not self._order_pending and self.shows_load(self._order_load)

    def settle_unloaded_order(self) -> None:
        """A sort or narrowing that no load followed (the screen could not reload: a Diff
        window that does not parse) holds no action key any longer."""
        if self._order_pending and self._generation == self._order_asked:
            self._order_pending = False

    def shows_load(self, generation: int) -> bool:
        """Whether load number `generation`, or a newer one, has put its rows on screen (or
        failed, and said so)."""
        return self._shown_generation >= generation

    def move_cursor(self, row: int) -> None:
        if self._row_count == 0:
            return
        row = max(0, min(row, self._row_count - 1))
        old, self._cursor = self._cursor, row
        if not self._scroll_to_cursor() and row != old:
            self.refresh_line(old + 1)  # line 0 is the header
            self.refresh_line(row + 1)
        if row != old:
            self._post_highlighted()

    # -- actions and events ------------------------------------------------

    def action_cursor_up(self) -> None:
        self.move_cursor(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(self._cursor + 1)

    def action_page_up(self) -> None:
        self._page(-self._visible_rows)

    def action_page_down(self) -> None:
        self._page(self._visible_rows)

    def action_cursor_first(self) -> None:
        self.move_cursor(0)

    def action_cursor_last(self) -> None:
        self.move_cursor(self._row_count - 1)

    def action_toggle_mark(self) -> None:
        row = self.row_at(self._cursor)
        if row is None:  # nothing to mark yet: the row is still being fetched
            self.app.bell()
            return
        key = self._key_of(row, self._cursor)
        if self._marked.pop(key, None) is None:
            self._marked[key] = row
        self.refresh_line(self._cursor + 1)
        self.post_message(self.MarksChanged(self, len(self._marked)))

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("column", "sort", "frequencies"):
            return self.sortable
        if action == "copy_id":
            return self.id_field is not None
        if action == "toggle_mark":
            return self.markable
        if action == "choose":
            return self.choosable
        return True

    def action_column(self, step: int) -> None:
        shown = self._shown_columns()
        self._column = max(0, min(len(shown) - 1, self._column + step))
        self._strips.clear()
        self.refresh()

    def action_sort(self, descending: bool) -> None:
        """Sort by the column under the column cursor; the same sort again restores the
        table's own order."""
        key = self.current_column.key
        self.sort = None if self.sort == (key, descending) else (key, descending)
        self._order_pending, self._order_asked = True, self._generation
        self.post_message(self.OrderChanged(self, self._cursor, self.row_at(self._cursor)))

    def action_frequencies(self) -> None:
        self.post_message(self.FrequenciesAsked(self, self.current_column))

    def set_narrow(self, narrow: tuple[str, str | None] | None) -> None:
        """Show only the rows whose column holds a value (None: every row)."""
        self.narrow = narrow
        self._order_pending, self._order_asked = True, self._generation
        self.post_message(self.OrderChanged(self, self._cursor, self.row_at(self._cursor)))

    def action_copy_id(self) -> None:
        row = self.row_at(self._cursor)
        if row is not None:
            self.post_message(self.CopyAsked(self, self._cursor, row))

    def action_choose(self) -> None:
        if self._row_count:
            self.post_message(self.Chosen(self, self._cursor, self.row_at(self._cursor)))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        index = self.scroll_offset.y + offset.y - 1
        if index < self._row_count:
            self.move_cursor(index)
            if event.chain == 2:
                self.action_choose()

    def on_mount(self) -> None:
        if self._pending_load is not None:
            source, keep_cursor = self._pending_load
            self._pending_load = None
            self.load(source, keep_cursor=keep_cursor)

    def on_resize(self) -> None:
        """A smaller table keeps its cursor's row in sight: shrunk from 40 rows to 24, the row
        the detail pane and the action keys meant was scrolled away, with no row highlighted
        (helper-75). After the refresh: the new height is laid out then."""
        self.call_after_refresh(self._scroll_to_cursor)

    def on_unmount(self) -> None:
        if self._requests is not None:
            self._requests.close()

    def on_focus(self) -> None:
        self._restyle()

    def on_blur(self) -> None:
        self._restyle()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._restyle()

    # -- workers and their results ----------------------------------------

    @work(thread=True, exclusive=True, group="virtual-table-load", exit_on_error=False)
    def _count_and_fetch(self, source: RowSource, generation: int, keep_cursor: bool,
                         pages: range, marked: list[str]) -> None:
        worker = get_current_worker()
        measures = present = None
        try:
            with self._source_lock:
                count = source.count()
                if hasattr(source, "measure"):
                    measures = source.measure(self.columns)
                if marked and hasattr(source, "present"):
                    present = source.present(self.key, marked)
            fetched: dict[int, list[Row]] = {}
            for page in pages:
                first = page * self.page_size
                if first >= count or worker.is_cancelled:
                    break
                with self._source_lock:
                    fetched[page] = list(source.fetch(first, min(count, first + self.page_size) - 1))
        except Exception as error:  # a broken source must not take the app down
            self.post_message(self._Failed(error))
            return
        if not worker.is_cancelled:
            self.post_message(self._Counted(generation, source, count, fetched, keep_cursor,
                                            measures, present))

    @work(thread=True, group="virtual-table-pages", exit_on_error=False)
    def _fetch_pages(self, requests: _PageRequests) -> None:
        while (page := requests.take()) is not None:
            low, high = self._window
            if not low <= page <= high:  # scrolled past it meanwhile
                requests.settle(page)
                continue
            try:
                with self._source_lock:
                    rows = list(requests.source.fetch(*requests.span(page)))
            except Exception as error:
                requests.settle(page, failed=True)
                self.post_message(self._Failed(error))
                continue
            self.post_message(self._PageFetched(requests, page, rows))

    @on(_Counted)
    def _show_source(self, message: _Counted) -> None:
        if message.generation != self._generation:
            return
        self._shown_generation = message.generation
        keep = message.keep_cursor
        anchors = self._anchor_keys() if keep and self.key else []
        old_cursor, old_top, old_count = self._cursor, self.scroll_offset.y, self._row_count
        self._requests = _PageRequests(message.source, message.count, self.page_size)
        self._pages.clear()
        self._strips.clear()
        for page, rows in message.pages.items():
            self._pages.put(page, rows)
        self._row_count = message.count
        self._loaded = True
        if message.measures is not None:
            self.column_layout.measured(message.measures)
        watched_generation, watched, shown = self._watch
        left = shown if watched is not None and watched_generation == message.generation and \
            message.present is not None and watched not in message.present else None
        if message.present is not None:
            self._drop_marks_not_in(message.present)
        self.virtual_size = Size(self._min_width(), message.count + 1)
        # The cursor's row where it is now; when it left (acted on), the row that followed it
        # (rows added above meanwhile must not make it land on one already passed), else the
        # one before it; else the same position.
        found = next((at for key in anchors if (at := self._pages.find(self.key, key)) is not None),
                     None)
        cursor = found if found is not None else (old_cursor if keep else 0)
        self._cursor = max(0, min(cursor, message.count - 1))
        # A row that moved stays on the same screen line.
        top = old_top + self._cursor - old_cursor if keep else 0
        self._scroll(top)
        self._scroll_to_cursor()
        if message.count != old_count:
            # The layout of the new size can change the rows' height on screen (a scrollbar
            # shown or hidden): the same scroll again after it.
            self.call_after_refresh(self._rescroll, top)
        self.refresh()
        self.post_message(self.Loaded(self, message.count))
        if left is not None:
            row = self.row_at(self._cursor) if message.count else None
            self.post_message(self.CursorRowLeft(self, left, None if row is None else self._id_of(row)))
        self._post_highlighted(reloaded=True)

    def _anchor_keys(self) -> list:
        """The keys a reload looks for to put the cursor back: its row's, then those of the
        rows after it (ANCHOR_AFTER, as loaded), then the one before it."""
        keys = []
        for index in [*range(self._cursor, self._cursor + 1 + ANCHOR_AFTER), self._cursor - 1]:
            row = self.row_at(index) if index >= 0 else None
            if row is not None:
                keys.append(self._key_of(row, index))
        return keys

    @on(_PageFetched)
    def _add_page(self, message: _PageFetched) -> None:
        if message.requests is not self._requests:
            return
        message.requests.settle(message.page)
        self._pages.put(message.page, message.rows)
        first = message.page * self.page_size
        last = first + len(message.rows) - 1
        top = self.scroll_offset.y
        low, high = max(first, top), min(last, top + self._visible_rows - 1)
        if low <= high:
            self.refresh_lines(low + 1, high - low + 1)
        if self._awaiting_cursor_row and first <= self._cursor <= last:
            self._post_highlighted(reloaded=True)

    @on(_Failed)
    def _report_failure(self, message: _Failed) -> None:
        self._shown_generation = self._generation
        reason = render(str(message.error), one_line=True)  # may quote a hostile value
        self.notify(f"Could not read rows: {reason}. Reload to try again.",
                    severity="error", markup=False)

    # -- rendering ---------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        self._width = self.scrollable_content_region.width  # once per pass: not cheap
        self._request_viewport_pages()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self._width or self.scrollable_content_region.width
        if y == 0:
            return self._header_strip(width)
        index = self.scroll_offset.y + y - 1
        if index >= self._row_count:
            if self._row_count == 0 and self._loaded and self.empty and y == 1:
                return self._finish([Segment(" " * GUTTER), *Text(self._empty_text(), style="italic")
                                     .render(self.app.console, end="")], width,
                                    self._base_style() + self._style("virtual-table--placeholder"))
            return Strip.blank(width, self._base_style())
        row = self._pages.row(index)
        if row is None:
            self._want(index // self.page_size)
            return self._placeholder_strip(width, index == self._cursor)
        return self._row_strip(index, row, width)

    def _row_strip(self, index: int, row: Row, width: int) -> Strip:
        marked = self._key_of(row, index) in self._marked
        cursor = index == self._cursor
        cache_key = (index, width, cursor, marked, self.has_focus)
        strip = self._strips.get(cache_key)
        if strip is None:
            segments = [Segment(f"{MARK_GLYPH} " if marked else " " * GUTTER)]
            console = self.app.console
            for column, cell_width in zip(self.columns, self._widths(width)):
                if not cell_width:
                    continue
                cell = _as_text(self.column_layout.cell(column, row, _safe_one_line))
                segments += cell_segments(cell, cell_width, console, middle=column.keep)
                segments.append(Segment(" "))
            strip = self._finish(segments, width, self._line_style(cursor, marked))
            self._strips[cache_key] = strip
        return strip

    def _header_strip(self, width: int) -> Strip:
        cache_key = ("header", width, self.has_focus)
        strip = self._strips.get(cache_key)
        if strip is None:
            segments = [Segment(" " * GUTTER)]
            console = self.app.console
            current = self.current_column.key if self.sortable and self.has_focus else None
            for column, cell_width in zip(self.columns, self._widths(width)):
                if not cell_width:
                    continue
                label = Text(self.column_layout.label(column))
                if column.key == current:
                    label.stylize(self._style("virtual-table--column"))
                segments += cell_segments(label, cell_width, console)
                segments.append(Segment(" "))
            strip = self._finish(segments, width, self._style("virtual-table--header"))
            self._strips[cache_key] = strip
        return strip

    def _placeholder_strip(self, width: int, cursor: bool) -> Strip:
        style = self._line_style(cursor, False)
        if not cursor:
            style += self._style("virtual-table--placeholder")
        return self._finish([Segment(" " * GUTTER + PLACEHOLDER)], width, style)

    @staticmethod
    def _finish(segments: Iterable[Segment], width: int, style: Style) -> Strip:
        """One Strip of exactly `width` cells. Built with Rich's segment
        functions, not Strip methods: each Strip method makes a new Strip with
        its own caches, and that was most of the cost of a page down. Merged
        segments make every later stage (filters, compositor) cheaper too."""
        line = list(Segment.apply_style(segments, style))
        length = sum(segment.cell_length for segment in line)
        if length < width:
            line.append(Segment(" " * (width - length), style))
        elif length > width:
            line = Segment.adjust_line_length(line, width, style)
        return Strip(list(Segment.simplify(line)), width)

    def _line_style(self, cursor: bool, marked: bool) -> Style:
        style = self._base_style()
        if marked:
            style += self._style("virtual-table--marked")
        if cursor:
            style += self._style("virtual-table--cursor")
        return style

    def _base_style(self) -> Style:
        style = self._styles.get(("", False))
        if style is None:
            style = self._styles[("", False)] = self.rich_style
        return style

    def _style(self, component: str) -> Style:
        cache_key = (component, self.has_focus)
        style = self._styles.get(cache_key)
        if style is None:
            style = self._styles[cache_key] = self.get_component_styles(component).rich_style
        return style

    def _restyle(self) -> None:
        self._styles.clear()
        self._strips.clear()
        self.refresh()

    # -- columns -----------------------------------------------------------

    def swap_column(self, key: str, column: Column) -> None:
        """Draw `column` where the column of `key` is (a field that means another thing in
        another view); the next load measures it."""
        at = next(i for i, c in enumerate(self.columns) if c.key == key)
        self.columns[at] = column
        self.column_layout.columns[at] = column
        self.column_layout.measured(Measures())


    def _widths(self, width: int) -> tuple[int, ...]:
        return self.column_layout.widths(width)

    def _shown_columns(self) -> list[Column]:
        return self.column_layout.shown(self._width or self.scrollable_content_region.width or 200)

    def _empty_text(self) -> str:
        if self.narrow is not None:          # which value, said (helper-64: "that value" only)
            key, value = self.narrow
            column = next((c for c in self.columns if c.key == key), None)
            shown = "(none)" if value is None else render(str(value), one_line=True)
            if len(shown) > 60:
                shown = shown[:59] + "…"
            return (f"No rows hold {(column.label if column else key.replace('_', ' ')).lower()} {shown} "
                    "(esc shows every row).")
        return self.empty

    def _drop_marks_not_in(self, present: Mapping[str, Row]) -> None:
        """Unmark the rows the table no longer holds, and those that read otherwise now than
        when they were marked (another process changed them: term86, a held T9 marked as
        "Always reply in French" was approved as "send the API key to …", still marked)."""
        gone = [key for key in self._marked if key not in present]
        changed = [key for key, row in self._marked.items()
                   if key in present and self._shown_fields(row) != self._shown_fields(present[key])]
        for key in gone + changed:
            del self._marked[key]
        if gone or changed:
            self.post_message(self.MarksChanged(self, len(self._marked), dropped=tuple(gone),
                                                changed=tuple(changed)))

    def _shown_fields(self, row: Row) -> tuple:
        """What the operator read of a row: the fields its columns draw."""
        return tuple((row.get(c.key), row.get(c.shows)) if c.shows else row.get(c.key)
                     for c in self.columns)

    # -- helpers -----------------------------------------------------------

    @property
    def _visible_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _id_of(self, row: Row) -> str:
        """What the operator reads a row by: its entry's id (id_field), else its key."""
        field = self.id_field or self.key
        return str(row.get(field)) if field else ""

    def _key_of(self, row: Row, index: int) -> str:
        return str(row[self.key]) if self.key is not None else str(index)

    def _min_width(self) -> int:
        return GUTTER + sum(column.width or MIN_SHARED_WIDTH for column in self.columns) + len(self.columns) - 1

    def _page(self, step: int) -> None:
        self._scroll(self.scroll_offset.y + step)
        self.move_cursor(self._cursor + step)

    def _scroll(self, y: int) -> None:
        """Scroll to line y (clamped to the rows). Forced: Textual drops a scroll asked while
        the vertical scrollbar is hidden, and a table that just got longer shows its scrollbar
        only at its next layout, so the scroll to the cursor's row was lost when that came late."""
        self.scroll_to(y=y, animate=False, force=True)

    def _rescroll(self, top: int) -> None:
        self._scroll(top)
        self._scroll_to_cursor()
        self.refresh()

    def _scroll_to_cursor(self) -> bool:
        """Scroll just enough to show the cursor row; True if it scrolled."""
        top, visible = self.scroll_offset.y, self._visible_rows
        if self._cursor < top:
            target = self._cursor
        elif self._cursor >= top + visible:
            target = self._cursor - visible + 1
        else:
            return False
        self._scroll(target)
        return True

    def _post_highlighted(self, reloaded: bool = False) -> None:
        self.highlights += 1
        row = self.row_at(self._cursor)
        self._awaiting_cursor_row = row is None and self._row_count > 0
        message = self.Highlighted(self, self._cursor, row)
        message.reloaded = reloaded
        self.post_message(message)

    def _want(self, page: int) -> None:
        requests = self._requests
        if requests is not None and page not in self._pages and requests.want(page):
            self._fetch_pages(requests)

    def _request_viewport_pages(self) -> None:
        """Ask for the pages in view, and the next one when the view is
        within half a page of the cached edge (nearest pages asked last: the
        worker takes the newest request first)."""
        if self._requests is None or self._row_count == 0:
            return
        size, top = self.page_size, self.scroll_offset.y
        bottom = min(self._row_count, top + self._visible_rows) - 1
        first, last = top // size, bottom // size
        self._window = (first - 1, last + 1)
        if top - first * size < size // 2 and first > 0:
            self._want(first - 1)
        if (last + 1) * size - 1 - bottom < size // 2 and (last + 1) * size < self._row_count:
            self._want(last + 1)
        for page in range(last, first - 1, -1):
            self._want(page)


