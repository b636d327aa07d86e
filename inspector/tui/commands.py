"""The command palette: every screen and every curation action the current screen offers,
from the same registry that gives the keys."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..store.registry import ACTIONS


class InspectorCommands(Provider):
    def _commands(self):
        app = self.app
        for number, mode in enumerate(app.MODES, start=1):
            yield f"Go to {mode.capitalize()}", f"screen {number}", lambda m=mode: app.switch_mode(m)
        screen = app.screen
        if not app.session.read_only:
            for name in getattr(screen, "ACTIONS", ()):
                action = ACTIONS[name]
                yield (f"{name.capitalize()} the selected entries", f"{action.help} (key {action.key})",
                       lambda n=name: screen.action_act(n))
        yield "Verify the chain", "audit --verify in the background", app.verify_chain

    async def discover(self) -> Hits:
        for title, help_text, run in self._commands():
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, run in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), run, help=help_text)
