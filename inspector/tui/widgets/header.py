"""The header every screen shows: the store, its size and head, chain status, live writes;
and the bar of screens with their counts."""

from __future__ import annotations

from rich.text import Text
from textual.events import Click
from textual.widgets import Static

from ...present.text import safe

SCREENS = (("beliefs", "Beliefs", None), ("review", "Review", "held"),
           ("conflicts", "Conflicts", "conflicts"), ("quarantine", "Quarantine", "quarantined"),
           ("findings", "Findings", "findings"), ("audit", "Audit", None), ("erasure", "Erasure", None))


def chain_text(chain: dict | None, verifying: bool, events: int | None = None) -> Text:
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


class StoreHeader(Static):
    """One line: store · events · entries · head · chain · live."""

    DEFAULT_CSS = "StoreHeader { height: 1; background: $panel; }"

    def show(self, status: Status) -> None:
        line = Text(" inspector  ", style="bold")
        line.append_text(safe(status.path, one_line=True, max_chars=48))
        if status.scope is not None:
            line.append("  scope ", style="dim")
            line.append_text(safe(status.scope or '""', one_line=True, max_chars=32))
        if status.loading:
            line.append(f"   {status.loading}", style="italic")
        else:
            line.append(f"   {status.events:,} events · {status.entries:,} entries · "
                        f"head {status.head or '–'}  ")
            line.append_text(chain_text(status.chain, status.verifying, status.events))
            line.append("  live ")
            line.append("●", style="bold green" if status.live_recent else "dim")
        if status.as_of:
            line.append(f"   as of {status.as_of}", style="bold yellow")
        if status.read_only:
            line.append("   read-only", style="bold")
        if status.warning:
            line.append("   ⚠ readable by others", style="bold red")
        self.update(line, layout=False)


class ModeBar(Static):
    """1 Beliefs  2 Review (3)  3 Conflicts (2) …, the current one highlighted; click to switch.
    One widget, not one per tab: fewer widgets make switching screens cheaper."""

    DEFAULT_CSS = "ModeBar { height: 1; background: $boost; }"

    def __init__(self, current: str, **kw):
        super().__init__(**kw)
        self.current = current
        self._spans: list[tuple[int, int, str]] = []

    def show(self, status: Status) -> None:
        from ..screens import specs
        line, self._spans = Text(), []
        for spec in specs():
            start, mode = len(line), spec.name
            style = "bold reverse" if mode == self.current else ""
            line.append(f" {spec.order} {spec.label}", style=style)
            count = status.counts.get(mode) if spec.count else None
            if count:
                line.append(f" ({count:,})", style=style + " bold")
            line.append(" ", style=style)
            self._spans.append((start, len(line), mode))
            line.append(" ")
        self.update(line, layout=False)

    def on_click(self, event: Click) -> None:
        mode = next((m for a, b, m in self._spans if a <= event.x < b), None)
        if mode:
            event.stop()
            self.app.switch_mode(mode)
