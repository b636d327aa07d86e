"""The Overview's pictures, drawn with block characters in one line-rendering widget: events
over time by op and by source class (one row of bars each, a column per time bucket), the held
queue, findings by severity and quarantined entries by source.

Every row or figure that narrows another screen is an item: up/down (or left/right) move
among them, enter or a click chooses one (posts Chosen). Names of sources are untrusted and
go through the one sanitizer; counts and times are ours.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...present.glyphs import SEVERITY_STYLE
from ...present.text import safe
from ..overview import Overview, Series, Timeline, age, stale_words, timeline

BARS = "▁▂▃▄▅▆▇█"
LABEL = 12                 # the row names' column ("quarantine" and a space)
TOTAL = 11                 # the totals' column
MAX_CELLS = 4              # a column of a short log is drawn up to this many cells wide
OP_STYLE = {"write": "green", "update": "green", "hold": "yellow", "approve": "cyan",
            "reject": "red", "quarantine": "red", "release": "cyan", "retract": "red",
            "expire": "magenta", "revert": "bright_blue", "erase": "magenta"}
CLASS_STYLE = {"web": "red", "document": "yellow", "tool": "blue", "agent": "green",
               "user": "cyan", "system": "bright_white", "operator": "magenta"}
HEADING = Style(bold=True, color="#ffa62b")
SEVERITIES = ("high", "medium", "low")


@dataclass(frozen=True)
class Item:
    """Something the operator can choose: `kind` (op, class, held, severity, quarantine) and
    the value it narrows to."""

    kind: str
    value: str | None
    label: str


def bars(counts: list[int], style: str, cells: int = 1) -> Text:
    """One bar per column (`cells` wide), scaled to the row's largest; an empty column stays
    blank."""
    top = max(counts) if counts else 0
    text = Text()
    for n in counts:
        if n == 0:
            text.append(" " * cells)
        else:
            text.append(BARS[max(0, -(-n * len(BARS) // top) - 1)] * cells, style=style)
    return text


def when(moment: int, step: int, date: bool) -> str:
    """A column's time: the date when asked (or when columns are days), the seconds when
    columns are shorter than a minute."""
    t = datetime.fromtimestamp(moment, timezone.utc)
    if step >= 86400:
        return t.strftime("%Y-%m-%d")
    clock = t.strftime("%H:%M:%S" if step < 60 else "%H:%M")
    return f"{t.strftime('%Y-%m-%d')} {clock}" if date else clock


def step_text(step: int) -> str:
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min"), (1, "s")):
        if step % size == 0:
            return f"{step // size}{unit}"
    return f"{step}s"


class Drawing:
    """The lines of the Overview at one width, and where each item lies on them."""

    def __init__(self, width: int):
        self.width = width
        self.lines: list[Text] = []
        self.items: list[tuple[Item, int, int, int]] = []     # item, line, start, end

    def line(self, text: Text | str = "") -> None:
        self.lines.append(text if isinstance(text, Text) else Text(text))

    def item(self, item: Item, text: Text) -> None:
        """`text` as a choosable item at the end of the current last line."""
        line = self.lines[-1]
        start = line.cell_len
        line.append_text(text)
        self.items.append((item, len(self.lines) - 1, start, line.cell_len))


def draw(overview: Overview | None, width: int, now: datetime, scanning: bool = False) -> Drawing:
    out = Drawing(width)
    if overview is None:
        out.line(Text("reading the store …", style="italic"))
        return out
    room = max(8, width - LABEL - TOTAL - 1)
    shown = timeline(overview.counts, room)
    if shown is None:
        out.line(Text("The log is empty: the store's events over time, the held queue, findings "
                      "and quarantines are drawn here once something is written.", style="dim"))
    else:
        _timeline(out, shown, max(1, min(MAX_CELLS, room // shown.columns)))
    out.line()
    _held(out, overview, now)
    _findings(out, overview.findings, scanning, overview.findings_behind)
    _quarantined(out, overview)
    return out


def _timeline(out: Drawing, shown: Timeline, cells: int) -> None:
    one_day = shown.start // 86400 == (shown.end - 1) // 86400
    title = Text("EVENTS BY OP", style=HEADING)
    span = f"  {when(shown.start, shown.step, True)} → {when(shown.end, shown.step, not one_day)} UTC"
    title.append(span + f" · {step_text(shown.step)} a column", style="dim")
    out.line(title)
    for series in shown.by_op:
        _series(out, Item("op", series.name, series.name), series, OP_STYLE.get(series.name, ""),
                cells)
    out.line(Text("EVENTS BY SOURCE CLASS", style=HEADING))
    for series in shown.by_class:
        value = None if series.name.startswith("(") else series.name
        _series(out, Item("class", value, series.name), series,
                CLASS_STYLE.get(series.name, "white"), cells)


def _series(out: Drawing, item: Item, series: Series, style: str, cells: int) -> None:
    out.line(Text(" "))
    label = Text(f"{series.name[:LABEL - 2]:<{LABEL - 1}}", style="bold")
    row = label + bars(series.counts, style, cells)
    row.append(f"{series.total:>{TOTAL},}", style="dim")
    out.item(item, row)


def _held(out: Drawing, overview: Overview, now: datetime) -> None:
    line = Text("HELD QUEUE  ", style=HEADING)
    out.line(line)
    if overview.held == 0:
        out.item(Item("held", None, "held"), Text("empty: no write waits for review", style="dim"))
        return
    text = Text(f"{overview.held:,} {'write waits' if overview.held == 1 else 'writes wait'}",
                style="bold yellow")
    text.append(" · oldest ")
    text.append_text(safe(overview.oldest_held_id, one_line=True, max_chars=40, style="bold"))
    held_at = overview.oldest_held_at
    text.append(f", held {held_at.strftime('%Y-%m-%d %H:%M:%S')} ({age(held_at, now)} ago)")
    out.item(Item("held", None, "held"), text)


def _findings(out: Drawing, findings: dict[str, int] | None, scanning: bool,
              behind: int | None = None) -> None:
    out.line(Text("FINDINGS    ", style=HEADING))
    if findings is None:
        out.lines[-1].append("scanning …" if scanning else "not scanned yet", style="italic")
        return
    for n, severity in enumerate(SEVERITIES):
        if n:
            out.lines[-1].append("  ")
        label = Text(f"■ {findings.get(severity, 0):,} {severity}", style=SEVERITY_STYLE[severity])
        out.item(Item("severity", severity, severity), label)
    if behind is not None:
        out.lines[-1].append(f"  {stale_words(behind)} · s on Findings scans again",
                             style="bold yellow")


def _quarantined(out: Drawing, overview: Overview) -> None:
    out.line(Text("QUARANTINED ", style=HEADING))
    if not overview.quarantined:
        out.lines[-1].append("nothing", style="dim")
        return
    out.lines[-1].append(f"{overview.quarantined:,} by source:", style="bold")
    shown = 0
    for source, n in overview.quarantined_by_source:
        label = safe(source if source is not None else "(no source)", one_line=True, max_chars=48)
        label.append(f" {n:,}", style="bold red")
        if out.lines[-1].cell_len + 2 + label.cell_len > out.width:
            break
        out.lines[-1].append("  ")
        out.item(Item("quarantine", source, source or ""), label)
        shown += 1
    rest = len(overview.quarantined_by_source) - shown
    if rest and out.lines[-1].cell_len + 10 <= out.width:
        out.lines[-1].append(f"  +{rest} more", style="dim")


class OverviewChart(ScrollView, can_focus=True):
    """The Overview's lines; up/down/left/right move among the items, enter chooses one."""

    BINDINGS = [Binding("up,k,left,h", "move(-1)", "previous", show=False),
                Binding("down,j,right", "move(1)", "next", show=False),
                Binding("enter", "choose", "narrow the screens to it", id="overview.choose")]
    COMPONENT_CLASSES = {"overview-chart--cursor"}
    DEFAULT_CSS = """
    OverviewChart { background: $surface; padding: 0 1; }
    OverviewChart > .overview-chart--cursor { background: $accent 40%; }
    OverviewChart:focus > .overview-chart--cursor { background: $block-cursor-background;
        color: $block-cursor-foreground; }
    """

    class Chosen(Message):
        def __init__(self, item: Item) -> None:
            super().__init__()
            self.item = item

    def __init__(self, **kw):
        super().__init__(**kw)
        self.overview: Overview | None = None
        self.scanning = False
        self.now: datetime = datetime.now(timezone.utc)
        self.cursor = 0
        self._drawing = Drawing(0)
        self._line_console: Console | None = None

    def show(self, overview: Overview | None, now: datetime, scanning: bool = False) -> None:
        self.overview, self.now, self.scanning = overview, now, scanning
        self._redraw()

    @property
    def items(self) -> list[Item]:
        return [item for item, *_ in self._drawing.items]

    @property
    def current(self) -> Item | None:
        items = self._drawing.items
        return items[self.cursor][0] if items else None

    def _redraw(self) -> None:
        width = max(20, self.scrollable_content_region.width or self.size.width or 80)
        chosen = self.current
        self._drawing = draw(self.overview, width, self.now, self.scanning)
        items = self.items
        # Keep the cursor on the same item when it is still drawn.
        self.cursor = items.index(chosen) if chosen in items else min(self.cursor, max(0, len(items) - 1))
        size = Size(width, len(self._drawing.lines))
        if size != self.virtual_size:
            self.virtual_size = size
        self.refresh()

    def on_resize(self) -> None:
        self._redraw()

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        style = self.rich_style
        if index >= len(self._drawing.lines):
            return Strip.blank(width, style)
        text = self._drawing.lines[index].copy()
        text.truncate(width, overflow="ellipsis")
        if self._drawing.items:
            _, line, start, end = self._drawing.items[self.cursor]
            if line == index:
                text.stylize(self.get_component_rich_style("overview-chart--cursor"), start, end)
        if self._line_console is None or self._line_console.width != width:
            self._line_console = Console(width=width, color_system="truecolor", force_terminal=True,
                                    legacy_windows=False)
        segments = list(text.render(self._line_console, end=""))
        return Strip(Segment.apply_style(segments, style=style)).crop_extend(0, width, style)

    def action_move(self, step: int) -> None:
        if not self._drawing.items:
            return
        self.cursor = max(0, min(len(self._drawing.items) - 1, self.cursor + step))
        _, line, _, _ = self._drawing.items[self.cursor]
        self.scroll_to_region(Region(0, line, 1, 1), animate=False)
        self.refresh()

    def action_choose(self) -> None:
        if self.current is not None:
            self.post_message(self.Chosen(self.current))

    def on_click(self, event: events.Click) -> None:
        y = event.y + self.scroll_offset.y
        x = event.x - 1      # the left padding
        for n, (item, line, start, end) in enumerate(self._drawing.items):
            if line == y and start <= x < end:
                self.cursor = n
                self.refresh()
                self.post_message(self.Chosen(item))
                return
