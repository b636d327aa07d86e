"""The rows a screen's table pages: a position-numbered table of the session (sorted or narrowed
to one value on request, through a per-screen order table), or rows already in memory. Values
leave here masked when the entry is secret; the reveal key shows one entry, in the detail pane.
Every call runs in a worker thread, through its own DuckDB cursor."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Mapping

from rich.cells import cell_len

from ..present.mask import is_secret, mask_value
from ..store.queries import sql
from .widgets.columns import Column, Measures, TimeSpan
from .widgets.rows import _safe_one_line

if TYPE_CHECKING:
    from .session import Session

Row = Mapping[str, Any]


def rows_of(cursor) -> list[dict]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def masked(rows: list[dict]) -> list[dict]:
    """Rows whose `value` (JSON text) belongs to a secret entry get it masked, and `secret`."""
    for row in rows:
        text = row.get("value")
        if not isinstance(text, str):
            continue
        entry = {"value": json.loads(text), "sensitivity": row.get("sensitivity"),
                 "held_reason": row.get("held_reason")}
        if is_secret(entry):
            row["value"] = json.dumps(mask_value(entry["value"]), ensure_ascii=False)
            row["secret"] = True
    return rows


class TableSource:
    """Rows of a position-numbered table or view (column vpos from 0), paged with vpos BETWEEN;
    sorted by a column or narrowed to one of its values through tui_order when asked."""

    def __init__(self, session: "Session", table: str, *, screen: str = "",
                 sort: tuple[str, bool] | None = None, narrow: tuple[str, str | None] | None = None,
                 decorate: Callable[[dict], dict] | None = None):
        self.session, self.table, self.screen = session, table, screen or table
        self.sort, self.narrow, self.decorate = sort, narrow, decorate

    @property
    def ordered(self) -> bool:
        return self.sort is not None or self.narrow is not None

    def count(self) -> int:
        if not self.ordered:
            with self.session.reader() as cur:
                return cur.execute(sql("tui_count"), {"table": self.table}).fetchone()[0]
        field, value = self.narrow or ("vpos", None)
        sort, descending = self.sort or ("vpos", False)
        with self.session.store.lock, self.session.reader() as cur:
            cur.execute(sql("tui_order_clear"), {"screen": self.screen})
            cur.execute(sql("tui_order_fill"), {
                "screen": self.screen, "table": self.table, "sort": sort, "descending": descending,
                "field": field, "narrowed": self.narrow is not None, "value": value})
            return cur.execute(sql("tui_order_count"), {"screen": self.screen}).fetchone()[0]

    def fetch(self, first: int, last: int) -> list[Row]:
        with self.session.reader() as cur:
            if self.ordered:
                found = cur.execute(sql("tui_order_page"), {"screen": self.screen, "table": self.table,
                                                             "first": first, "last": last})
            else:
                found = cur.execute(sql("tui_page"), {"table": self.table, "first": first, "last": last})
            rows = rows_of(found)
        return masked([self.decorate(r) for r in rows] if self.decorate else rows)

    def measure(self, columns: list[Column]) -> Measures:
        """The widest value of each kept or measured column, and each time column's span."""
        out = Measures()
        with self.session.reader() as cur:
            for column in columns:
                if column.time:
                    years, first, seconds = cur.execute(sql("tui_time_span"), {
                        "table": self.table, "field": column.key}).fetchone()
                    out.times[column.key] = TimeSpan((first,) if years == 1 else (), bool(seconds))
                elif column.keep or column.measure:
                    out.widths[column.key] = _widest(cur, self.table, column)
        return out

    def present(self, field: str, keys: list[str]) -> dict[str, Row]:
        """The rows of `keys` (values of `field`) the table still holds, as fetch gives them."""
        with self.session.reader() as cur:
            rows = rows_of(cur.execute(sql("tui_present"), {"table": self.table, "field": field,
                                                            "keys": keys}))
        rows = masked([self.decorate(r) for r in rows] if self.decorate else rows)
        return {str(r[field]): r for r in rows}

    def frequencies(self, field: str) -> list[dict]:
        """The column's values with how many rows hold each, most frequent first (500 at most);
        the value column's are masked where an entry holding them is secret."""
        with self.session.reader() as cur:
            if field == "value":
                rows = rows_of(cur.execute(sql("tui_frequencies_flagged"),
                                           {"table": self.table, "field": field}))
            else:
                rows = rows_of(cur.execute(sql("tui_frequencies"), {"table": self.table, "field": field}))
        if field == "value":
            for row in rows:
                row["shown"] = _masked_text(row["value"], row.get("secret"))
        return rows


# The longest values not drawn as written that a column's width is measured on (tui_widest_drawn):
# a longer one is no wider than this many cells a character (a wide character's two).
DRAWN_MEASURED = 2000
WIDE_CELLS = 2


def _widest(cur, table: str, column: Column) -> int:
    """The cells the widest value of `column` takes as drawn: an escape takes more cells than
    the character it shows, a wide character two (helper-72: ids cut to `M1…` because the
    column was as wide as the longest id in characters)."""
    args = {"table": table, "field": column.key}
    widest = cur.execute(sql("tui_widest"), args).fetchone()[0] or 0
    drawn = [v for (v,) in cur.execute(sql("tui_widest_drawn"), {**args, "n": DRAWN_MEASURED}).fetchall()]
    draw = column.render or _safe_one_line        # as the table draws a cell
    for value in drawn:
        widest = max(widest, cell_len(draw(value).plain))
    if len(drawn) == DRAWN_MEASURED:
        widest = max(widest, WIDE_CELLS * len(drawn[-1]))
    return widest


def _masked_text(text: str | None, flagged: bool | None) -> str | None:
    if text is None:
        return None
    value = json.loads(text)
    return json.dumps(mask_value(value), ensure_ascii=False) \
        if flagged or is_secret({"value": value}) else text


def _text_of(value: Any) -> str | None:
    """A value as the frequency list and the narrowing compare it (DuckDB's ::VARCHAR)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


class ListSource:
    """Rows already in memory (a small derived result such as scan findings), sorted and
    narrowed in Python."""

    def __init__(self, rows: list[Row], *, sort: tuple[str, bool] | None = None,
                 narrow: tuple[str, str | None] | None = None):
        self.all = list(rows)
        shown = [r for r in self.all if narrow is None or _text_of(r.get(narrow[0])) == narrow[1]]
        if sort is not None:
            key, descending = sort
            present = [r for r in shown if r.get(key) is not None]
            shown = sorted(present, key=lambda r: _sort_key(r[key]), reverse=descending) + \
                [r for r in shown if r.get(key) is None]
        self.rows = shown

    def count(self) -> int:
        return len(self.rows)

    def fetch(self, first: int, last: int) -> list[Row]:
        return self.rows[first:last + 1]

    def measure(self, columns: list[Column]) -> Measures:
        """The widest value of each kept or measured column, in cells as drawn."""
        def drawn(column: Column, value: Any) -> int:
            if value is None:
                return 0
            text = column.render(value) if column.render else _safe_one_line(_text_of(value))
            return cell_len(text.plain)
        return Measures(widths={c.key: max((drawn(c, r.get(c.key)) for r in self.all), default=0)
                                for c in columns if c.keep or c.measure})

    def present(self, field: str, keys: list[str]) -> dict[str, Row]:
        wanted = set(keys)
        return {str(r.get(field)): r for r in self.rows if str(r.get(field)) in wanted}

    def frequencies(self, field: str) -> list[dict]:
        counts: dict[str | None, int] = {}
        raw: dict[str | None, Any] = {}
        for row in self.all:
            text = _text_of(row.get(field))
            counts[text] = counts.get(text, 0) + 1
            raw.setdefault(text, row.get(field))
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0] is None, kv[0] or ""))
        return [{"value": v, "n": n, "raw": raw[v]} for v, n in ranked[:500]]


def _sort_key(value: Any):
    return (0, value, "") if isinstance(value, (int, float)) else (1, 0, str(value))
