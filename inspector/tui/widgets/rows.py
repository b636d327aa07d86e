"""The rows a VirtualTable pages through: the source protocol, the page cache and the queue of
page requests, and how one cell becomes segments. (Columns and their widths: columns.py.)"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Protocol

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.text import Text

from inspector.present.text import ELLIPSIS, ESCAPE_STYLE, safe, safe_value

Row = Mapping[str, Any]


class RowSource(Protocol):
    """Numbered rows the table pages through. Both calls may run a query, so
    the table only ever calls them from a worker thread, one call at a time.
    A source may also offer `measure(columns)` (widest values and time spans, see
    `Measures`) and `present(field, keys)` (the marked rows it still holds, by key, as
    `fetch` gives them)."""

    def count(self) -> int: ...

    def fetch(self, first: int, last: int) -> list[Row]: ...  # rows first..last, inclusive


def cell_segments(text: Text, width: int, console: Console, middle: bool = False) -> list[Segment]:
    """`text` on one line of exactly `width` cells, cut with an ellipsis: at the end, or in
    the middle (`middle`: an id, whose end tells apart ids that share a long start:
    `incident-2025-…-entry-0001`, helper-67)."""
    if "\n" in text.plain:  # a custom render broke the one-line contract
        text = Text("⏎", style=ESCAPE_STYLE).join(text.split(allow_blank=True))
    if text.cell_len > width:
        text = _cut_middle(text, width) if middle and width >= 5 else text.copy()
        text.truncate(width, overflow="ellipsis")
    pad = " " * (width - text.cell_len)
    if not text.spans and not text.style:  # the common case: one plain segment
        return [Segment(text.plain + pad)]
    segments = list(text.render(console, end=""))
    if pad:
        segments.append(Segment(pad))
    return segments


def _cut_middle(text: Text, width: int) -> Text:
    """`text` with its middle replaced by an ellipsis, to fit `width` cells: the start and the
    end kept, the end given the odd cell (a cell at a time: wide characters count two)."""
    head_cells, tail_cells = (width - 1) // 2, width - 1 - (width - 1) // 2
    plain, head, used = text.plain, 0, 0
    while head < len(plain) and used + cell_len(plain[head]) <= head_cells:
        used += cell_len(plain[head])
        head += 1
    tail, used = len(plain), 0
    while tail > head and used + cell_len(plain[tail - 1]) <= tail_cells:
        tail -= 1
        used += cell_len(plain[tail])
    return Text.assemble(text[:head], Text(ELLIPSIS, style=ESCAPE_STYLE), text[tail:])


class _PageCache:
    """The fetched pages, least recently used dropped first."""

    def __init__(self, page_size: int, max_pages: int) -> None:
        self.page_size, self.max_pages = page_size, max_pages
        self._pages: OrderedDict[int, list[Row]] = OrderedDict()

    def __contains__(self, page: int) -> bool:
        return page in self._pages

    @property
    def rows_held(self) -> int:
        return sum(len(rows) for rows in self._pages.values())

    def row(self, index: int) -> Row | None:
        page, offset = divmod(index, self.page_size)
        rows = self._pages.get(page)
        if rows is None:
            return None
        self._pages.move_to_end(page)
        return rows[offset] if offset < len(rows) else None

    def put(self, page: int, rows: list[Row]) -> None:
        self._pages[page] = rows
        self._pages.move_to_end(page)
        while len(self._pages) > self.max_pages:
            self._pages.popitem(last=False)

    def find(self, field: str, key: str) -> int | None:
        """The index of the cached row whose `field` is `key`, if any."""
        for page, rows in self._pages.items():
            for offset, row in enumerate(rows):
                if str(row.get(field)) == key:
                    return page * self.page_size + offset
        return None

    def clear(self) -> None:
        self._pages.clear()


class _PageRequests:
    """Pages wanted from one loaded source, shared by the UI thread and the
    fetch worker. The worker takes the newest request first (the page in view
    now). `want` says whether a worker must be started; that is decided under
    the lock, so a request never waits on a worker that is already leaving."""

    def __init__(self, source: RowSource, count: int, page_size: int) -> None:
        self.source, self.count, self.page_size = source, count, page_size
        self._lock = threading.Lock()
        self._queued: dict[int, None] = {}
        self._busy: set[int] = set()
        self._failed: set[int] = set()
        self._draining = self._closed = False

    def span(self, page: int) -> tuple[int, int]:
        first = page * self.page_size
        return first, min(self.count, first + self.page_size) - 1

    def want(self, page: int) -> bool:
        with self._lock:
            if self._closed or page in self._queued or page in self._busy or page in self._failed:
                return False
            self._queued[page] = None
            start, self._draining = not self._draining, True
            return start

    def take(self) -> int | None:
        with self._lock:
            if self._closed or not self._queued:
                self._draining = False
                return None
            page, _ = self._queued.popitem()
            self._busy.add(page)
            return page

    def settle(self, page: int, *, failed: bool = False) -> None:
        with self._lock:
            self._busy.discard(page)
            if failed:
                self._failed.add(page)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._queued.clear()


def _safe_one_line(value: Any) -> Text:
    """A cell: one value on one line, the spaces it begins or ends with escaped too."""
    return safe(value, one_line=True, edges=True)


def _as_text(cell: Any) -> Text:
    """A column's render result; anything but Text is sanitized, never parsed."""
    return cell if isinstance(cell, Text) else safe(cell, one_line=True, edges=True)


def json_cell(text: str | None) -> Text:
    """A cell holding a JSON column (a memory value as DuckDB returns it)."""
    return safe_value(None if text is None else json.loads(text))
