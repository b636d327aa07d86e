"""The header every screen shows: the store, its size and head, the chain's state (never ✓ for
a log that went back or was replaced under us), live writes and lines that could not be
loaded; and the bar of screens with their counts. Both fit the terminal's width: what matters
least goes first when it is narrow (the chain's state and the view's time never go)."""

from __future__ import annotations

from rich.text import Text
from textual.events import Click
from textual.widgets import Static

from ...present.text import safe
from ..spec import Status


def chain_text(chain: dict | None, verifying: bool, events: int | None = None,
               problem: str | None = None) -> Text:
    if problem:
        return Text(f"chain ✗ log {problem}", style="bold red")
    if verifying:
        return Text("chain … verifying", style="dim")
    if chain is None:
        return Text("chain ? (6 v: verify)", style="dim")
    if not chain["ok"]:
        return Text(f"chain ✗ at seq {chain['first_bad_seq']}", style="bold red")
    text = Text("chain ✓", style="bold green")
    verified = chain["events"]
    if events is not None and events > verified:
        text.append(f" to {verified} (+{events - verified} since)", style="yellow")
    return text


PATH_MIN = 12


def _path(path: str, width: int) -> Text:
    """The store's path, cut from the left (the store's own name is what tells stores apart)."""
    text = safe(path, one_line=True)
    if text.cell_len > width:
        text = Text("…") + text[text.cell_len - max(1, width - 1):]
    return text


class StoreHeader(Static):
    """One line: store · events · entries · head · chain · live, and the view's time."""

    DEFAULT_CSS = "StoreHeader { height: 1; background: $panel; }"

    status: Status | None = None

    def __init__(self, view_time: bool = True, **kw):
        super().__init__(**kw)
        self.view_time = view_time      # the screen's rows follow the as-of time (else: now)

    def show(self, status: Status) -> None:
        self.status = status
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if self.status is not None:
            self.update(self.line(self.status, self.size.width or 200, self.view_time), layout=False)

    @staticmethod
    def pieces(status: Status, view_time: bool = True) -> list[tuple[int, Text | None]]:
        """(rank, text) in display order, None standing for the path; when the line is too
        long the highest rank goes first (rank 0 never goes)."""
        s = status
        out: list[tuple[int, Text | None]] = [(6, Text(" inspector", style="bold")), (3, None)]
        if s.scope is not None:
            scope = Text("  scope ", style="dim")
            scope.append_text(safe(s.scope or '""', one_line=True, max_chars=32))
            out.append((2, scope))
        if s.loading:
            waited = f" {s.loading_for} s" if s.loading_for >= 2 else ""
            out.append((0, Text(f"  {s.loading}{waited}", style="italic")))
        else:
            out.append((4, Text(f"  {s.events:,} event{'' if s.events == 1 else 's'} · "
                                f"{s.entries:,} entr{'y' if s.entries == 1 else 'ies'}")))
            out.append((5, Text(f" · head {s.head or '–'}")))
            out.append((0, Text("  ") + chain_text(s.chain, s.verifying, s.events, s.log_problem)))
            live = Text("  live ")
            live.append("●", style="bold green" if s.live_recent else "dim")
            out.append((4, live))
        if s.live_error:
            # The alarm never goes (the view has stopped following the log); why, only where
            # there is room for it.
            out.append((0, Text("  ⚠ new lines not loaded", style="bold red")))
            why = Text(": ", style="bold red")
            why.append_text(safe(s.live_error, one_line=True, max_chars=80))
            out.append((1, why))
        if s.context is not None:
            context = Text("  context ", style="bold yellow")
            context.append_text(safe(s.context or '""', one_line=True, max_chars=40, style="bold yellow"))
            out.append((1, context))
        if (s.as_of or s.valid_at) and not view_time:
            # This screen lists the store now (a queue acts on now): the times set on Beliefs
            # must not read as this screen's.
            out.append((0, Text("  now", style="bold")))
            out.append((1, Text(f" (as of {s.as_of or 'now'} on Beliefs, Conflicts, Diff)",
                                style="yellow")))
        else:
            if s.as_of:
                out.append((0, Text(f"  as of {s.as_of}", style="bold yellow")))
            if s.valid_at:
                out.append((0, Text(f"  valid at {s.valid_at}", style="bold yellow")))
        if s.read_only:
            out.append((1, Text("  read-only", style="bold")))
        if s.warning:
            out.append((2, Text("  ⚠ readable by others", style="bold red")))
        return out

    def line(self, status: Status, width: int, view_time: bool = True) -> Text:
        """The header in `width` cells: the path gets what the other pieces leave (cut from
        the left), and pieces go, highest rank first, while that is under PATH_MIN."""
        pieces = self.pieces(status, view_time)
        used = lambda: sum(t.cell_len for _, t in pieces if t is not None)  # noqa: E731
        needed = min(PATH_MIN, len(status.path)) + 1
        for rank in range(6, 0, -1):
            if width - used() >= needed:
                break
            pieces = [(r, t) for r, t in pieces if r != rank or t is None]
        room = max(needed - 1, width - used() - 1)
        line = Text()
        for _, text in pieces:
            line.append_text(Text(" ") + _path(status.path, room) if text is None else text)
        line.truncate(width, overflow="ellipsis")
        return line


def compact_count(n: int) -> str:
    """12, 999, 1.2k, 12k, 1.0M, 3.4M, 123M: a count in at most four characters."""
    if n < 1000:
        return str(n)
    for unit, size in (("k", 10**3), ("M", 10**6), ("G", 10**9)):
        value = n / size
        text = f"{value:.1f}" if value < 9.95 else f"{value:.0f}"
        if float(text) < 1000 or unit == "G":
            return text + unit
    return str(n)


class ModeBar(Static):
    """1 Beliefs  2 Review (3)  3 Conflicts (2) …, the current one highlighted; click to switch.
    When the labels do not fit, the other screens' labels are shortened. One widget, not one
    per tab: fewer widgets make switching screens cheaper."""

    DEFAULT_CSS = "ModeBar { height: 1; background: $boost; }"

    def __init__(self, current: str, **kw):
        super().__init__(**kw)
        self.current = current
        self._spans: list[tuple[int, int, str]] = []
        self.status: Status | None = None

    def show(self, status: Status) -> None:
        self.status = status
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    # Tighter and tighter, until the tabs fit: one space between whole labels (at 120 columns
    # with a few counts: "3 Conflicts", not "3 Confl"), counts as 1.2k there too, then the
    # other screens' short labels, one space between tabs, the current one's short label too, counts as 1.2k and 3.4M, the digit
    # against the other tabs' labels, then only the current tab's count (a size or a queue
    # of another screen is one keypress away; a tab cut off the edge is not), and last the other
    # tabs as their digits alone (60 columns: every tab is still there).
    LEVELS = ({}, {"tight": True}, {"tight": True, "compact": True}, {"short": True}, {"short": True, "tight": True},
              {"short": True, "tight": True, "all_short": True},
              {"short": True, "tight": True, "all_short": True, "compact": True},
              {"short": True, "tight": True, "all_short": True, "compact": True, "joined": True},
              {"short": True, "tight": True, "all_short": True, "compact": True, "joined": True,
               "own_count": True},
              {"short": True, "tight": True, "all_short": True, "compact": True, "joined": True,
               "own_count": True, "bare": True})

    def _draw(self) -> None:
        if self.status is None:
            return
        width = self.size.width or 200
        for level in self.LEVELS:
            line, spans = self.line(self.status, **level)
            if line.cell_len <= width:
                break
        self._spans = spans
        self.update(line, layout=False)

    def line(self, status: Status, short: bool = False, tight: bool = False,
             all_short: bool = False, compact: bool = False, joined: bool = False,
             own_count: bool = False, bare: bool = False) -> tuple[Text, list[tuple[int, int, str]]]:
        """The tabs; `short`: the other screens' short labels; `tight`: one space between tabs;
        `all_short`: the current screen's short label too; `compact`: counts as 1.2k, 3.4M;
        `joined`: no space between the other tabs' digits and labels; `own_count`: only the
        current tab shows its count; `bare`: the other tabs are their digits alone."""
        from ..screens import specs
        line, spans = Text(), []
        for spec in specs():
            start, mode = len(line), spec.name
            current = mode == self.current
            style = "bold reverse" if current else ""
            label = spec.short if short and (all_short or not current) and spec.short else spec.label
            if bare and not current:
                label = ""
            line.append(f" {spec.order}{'' if joined and not current else ' '}{label}", style=style)
            count = status.counts.get(mode) if spec.count and (current or not own_count) else None
            narrowed = status.narrowed.get(mode) if spec.count else None
            shown = None
            if narrowed is not None and count is not None:
                size = compact_count if compact else (lambda n: f"{n:,}")
                shown = f"{size(narrowed)} of {size(count)}"
            # Zero is shown on the current tab only (helper-72: a filter that left no row took
            # the count away, as if there were none to count).
            elif count or (count is not None and (current or mode in status.stale)):
                shown = compact_count(count) if compact else f"{count:,}"
            if shown is not None:
                if mode in status.stale:      # of an older read: "(2, stale)", short "(2?)"
                    shown += "?" if short else ", stale"
                line.append(f" ({shown})" if not short else f"({shown})", style=style + " bold")
            if current or not tight:
                line.append(" ", style=style)
            spans.append((start, len(line), mode))
            if not short:
                line.append(" ")
        return line, spans

    def on_click(self, event: Click) -> None:
        mode = next((m for a, b, m in self._spans if a <= event.x < b), None)
        if mode:
            event.stop()
            self.app.switch_mode(mode)
