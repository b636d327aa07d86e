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

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _changed(self, screen) -> None:
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self.draw)

    def draw(self) -> None:
        line, self._spans, seen = Text(), [], set()
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            start = len(line)
            key = self.app.get_key_display(binding)
            line.append(f" {key} ", style="bold" if enabled else "dim")
            line.append(f"{binding.description} ", style="" if enabled else "dim")
            self._spans.append((start, len(line), binding.action))
        line.append(" ^p palette", style="dim")
        self.update(line, layout=False)

    def on_click(self, event: Click) -> None:
        action = next((a for start, end, a in self._spans if start <= event.x < end), None)
        if action:
            event.stop()
            self.call_later(self.screen.run_action, action)
