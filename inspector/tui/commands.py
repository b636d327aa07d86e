"""The command palette: every screen and every curation action the current screen offers,
from the same registry that gives the keys."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..store.registry import available
from .screens import specs


class InspectorCommands(Provider):
    def _commands(self):
        app = self.app
        for spec in specs():
            yield (f"Go to {spec.label}", f"screen {spec.order}",
                   lambda m=spec.name: app.switch_mode(m))
        screen = app.screen
        offered = getattr(getattr(screen, "SPEC", None), "actions", ())
        for action in available(app.session.read_only):
            if action.name in offered:
                yield (f"{action.name.capitalize()} the selected entries",
                       f"{action.help} (key {action.key})", lambda n=action.name: screen.action_act(n))
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
