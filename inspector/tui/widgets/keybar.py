"""The footer: the keys the focused screen offers now, one line, one widget.

Textual's Footer rebuilds a widget per key on every screen switch; this draws the same facts
as one Text, so switching screens stays cheap. Disabled keys (a write pending) are dim;
hidden ones (read-only) are absent. Clicking a key runs its action.
"""

from __future__ import annotations

from rich.text import Text
from textual.events import Click
from textual.widgets import Static


class KeyBar(Static):
    DEFAULT_CSS = "KeyBar { height: 1; background: $panel; dock: bottom; }"

    def __init__(self, **kw):
        super().__init__(**kw)
        self._spans: list[tuple[int, int, str]] = []
        self._marks = 0

    @property
    def marks(self) -> int:
        return self._marks

    @marks.setter
    def marks(self, count: int) -> None:
        """How many rows are marked: shown first, so that a bulk action is never a surprise."""
        self._marks = count
        if self.is_attached:
            self.draw()

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _changed(self, screen) -> None:
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self.draw)

    def draw(self) -> None:
        line, self._spans, seen = Text(), [], set()
        if self._marks:
            line.append(f" ● {self._marks} marked ", style="bold reverse")
            line.append(" ")
        start = len(line)
        line.append(" ? ", style="bold")
        line.append("help ")
        self._spans.append((start, len(line), "app.help"))
        shown = sorted(self.screen.active_bindings.values(),
                       key=lambda a: (not a.binding.action.startswith("act("), a.node is not self.screen))
        for _node, binding, enabled, _tooltip in shown:
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            start = len(line)
            key = self.app.get_key_display(binding)
            line.append(f" {key} ", style="bold" if enabled else "dim")
            line.append(f"{binding.description} ", style="" if enabled else "dim")
            self._spans.append((start, len(line), binding.action))
        self.update(line, layout=False)

    def on_click(self, event: Click) -> None:
        action = next((a for start, end, a in self._spans if start <= event.x < end), None)
        if action:
            event.stop()
            self.call_later(self.screen.run_action, action)
