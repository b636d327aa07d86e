"""A table's columns: what each shows, how wide it is at a given width (ids and times never cut,
droppable columns going first when the terminal is narrow), and the header it shows (a sort
arrow, a time column's one year)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from rich.text import Text

GUTTER = 2  # a mark glyph and a space
MIN_SHARED_WIDTH = 8
GROW_RESERVE = 8  # cells a growing column (VALUE) keeps beyond its minimum before others are whole
KEEP_SHARE = 3  # a kept column (an id) takes at most 1/KEEP_SHARE of the width, or KEEP_CELLS
KEEP_CELLS = 40  # (a UUID, 36, is always whole)


@dataclass(frozen=True)
class Column:
    """One column: which row field it shows, its header and how wide it is."""

    key: str
    label: str  # header text (trusted, but still never parsed as markup)
    width: int | None = None  # cells; None shares the remaining width (min `min`)
    render: Callable[[Any], Text] | None = None  # default: safe(value, one_line=True)
    min: int = MIN_SHARED_WIDTH  # a shared column's fewest cells
    keep: bool = False  # never cut (ids): as wide as the widest value the source reports
    grow: bool = False  # takes the width left once the other columns show their widest value
    drop: int = 0  # 0: always shown; otherwise dropped (highest first) when the table is narrow
    time: bool = False  # a time: the year and seconds are shown only where rows differ in them
    measure: bool = False  # a shared column that asks the source for its widest value
    shows: str | None = None  # the row field drawn, when not `key` (which sorts and counts)


@dataclass(frozen=True)
class TimeSpan:
    """What the rows of a time column differ in: whether they span several years (else the
    one year goes into the header) and whether any has seconds."""

    years: tuple[int, ...] = ()
    seconds: bool = True

    @property
    def format(self) -> str:
        date = "%Y-%m-%d" if len(self.years) != 1 else "%m-%d"
        return f"{date} %H:%M:%S" if self.seconds else f"{date} %H:%M"

    @property
    def width(self) -> int:
        return len(datetime(2000, 1, 1).strftime(self.format))

    def label(self, label: str) -> str:
        return f"{label} {self.years[0]}" if len(self.years) == 1 else label

    def cell(self, value: Any) -> Text:
        return Text(value.strftime(self.format) if isinstance(value, datetime) else "")


FULL_TIME = TimeSpan()


@dataclass
class Measures:
    """What a source says about its columns: widest values (cells) and time spans."""

    widths: dict[str, int] = field(default_factory=dict)
    times: dict[str, TimeSpan] = field(default_factory=dict)


def _need(column: Column, widths: Mapping[str, int]) -> int:
    """The cells a column asks for before any shared width is handed out."""
    if column.keep:
        return max(len(column.label), widths.get(column.key, column.width or len(column.label)))
    if column.width is not None:
        return column.width
    if column.measure and column.key in widths:     # no wider than its widest value needs
        return max(len(column.label), min(column.min, widths[column.key]))
    return column.min


def column_widths(columns: list[Column], width: int,
                  widths: Mapping[str, int] | None = None) -> tuple[int, ...]:
    """Cell widths for `width` cells (0: the column is dropped). Kept columns get their widest
    value and fixed ones their width; when even that does not fit, droppable columns go
    (highest `drop` first). Shared columns then grow to their widest value, and what is left
    goes to the `grow` columns (or, if none, to every shared column)."""
    widths = widths or {}
    shown = list(range(len(columns)))
    need = {i: _need(columns[i], widths) for i in shown}
    # A kept column (an id) is shown whole up to 40 cells or a third of the table: one hostile
    # 300-character id must not take every other column away from every row (it ends in an
    # ellipsis; the detail pane and every dialog show it whole).
    for i in shown:
        if columns[i].keep:
            need[i] = min(need[i], max(len(columns[i].label), KEEP_CELLS, width // KEEP_SHARE))

    def total() -> int:
        return GUTTER + sum(need[i] for i in shown) + len(shown) - 1
    for i in sorted((i for i in shown if columns[i].drop), key=lambda i: -columns[i].drop):
        if total() <= width:
            break
        shown.remove(i)
    out = {i: need[i] for i in shown}
    free = width - total()
    shared = [i for i in shown if columns[i].width is None and not columns[i].keep]
    growers = [i for i in shared if columns[i].grow] or shared
    measured = [i for i in shared if columns[i].measure and i not in growers]
    # Turn by turn: measured columns one cell each until they show their widest value, the
    # growing ones one cell every other turn, without end; so a long SCOPE or SOURCE is shown
    # whole soon, and never starves VALUE.
    deficit = sum(max(0, widths.get(columns[i].key, 0) - out[i]) for i in measured)
    if measured and free - deficit >= GROW_RESERVE * len(growers):
        for i in measured:                 # room for all of them whole, and VALUE still grows
            more = max(0, widths.get(columns[i].key, 0) - out[i])
            out[i] += more
            free -= more
    turn = 0
    while free > 0:
        short = [i for i in measured if out[i] < widths.get(columns[i].key, 0)]
        wanting = short + (growers if turn % 2 or not short else [])
        if not wanting:                    # every column is fixed, or whole
            break
        turn += 1
        for i in wanting[:free]:
            out[i] += 1
        free -= min(free, len(wanting))
    return tuple(out.get(i, 0) for i in range(len(columns)))


class Layout:
    """The columns of one table as it is now: measured by its source, maybe sorted or narrowed
    to one value. Widths are worked out once per terminal width."""

    def __init__(self, columns: list[Column]) -> None:
        self.columns = list(columns)
        self.measures = Measures()
        self.sort: tuple[str, bool] | None = None           # (column key, descending)
        self.narrow: tuple[str, str | None] | None = None  # (column key, value as text)
        self._widths: dict[tuple, tuple[int, ...]] = {}

    def measured(self, measures: Measures) -> None:
        self.measures = measures
        self._widths.clear()

    def widths(self, width: int) -> tuple[int, ...]:
        """Each column's cells at `width` (0: dropped)."""
        key = (width, self.sort, self.narrow)
        found = self._widths.get(key)
        if found is None:
            widths = dict(self.measures.widths)
            for column in self.columns:
                if column.time:
                    widths[column.key] = self.span(column).width
            found = self._widths[key] = column_widths(self._sized(), width, widths)
        return found

    def shown(self, width: int) -> list[Column]:
        return [c for c, w in zip(self.columns, self.widths(width)) if w]

    def _sized(self) -> list[Column]:
        """The columns as they are measured: with the header they show (a sort arrow, a time's
        year), and time columns kept whole like ids."""
        return [replace(c, label=self.label(c), keep=c.keep or c.time) for c in self.columns]

    def span(self, column: Column) -> TimeSpan:
        return self.measures.times.get(column.key, FULL_TIME)

    def label(self, column: Column) -> str:
        label = self.span(column).label(column.label) if column.time else column.label
        if self.sort and self.sort[0] == column.key:
            label += " ▼" if self.sort[1] else " ▲"
        if self.narrow and self.narrow[0] == column.key:
            label += " ="
        return label

    def cell(self, column: Column, row: Mapping[str, Any], fallback: Callable[[Any], Text]) -> Any:
        """What a row shows in a column: a time in the column's format, else its render."""
        value = row.get(column.shows or column.key)
        if column.time and column.render is None:
            return self.span(column).cell(value)
        return (column.render or fallback)(value)
