"""The command palette: every screen, and every key of the screen it was opened from — the
curation actions first, from the same registry that gives the keys — each found by its name
("quar" finds Quarantine) and run on that screen."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..store.registry import ACTIONS
from .modals.help import action_name, action_params, own_actions
from .screens import specs


class InspectorCommands(Provider):
    def _commands(self):
        app, screen = self.app, self.screen        # the screen the palette was opened from
        offered = getattr(getattr(screen, "SPEC", None), "actions", ())
        for name in offered:
            action = ACTIONS[name]
            if screen.check_action("act", (name,)) is False:
                continue
            yield (f"{name.capitalize()} the selected entries", f"{action.help} (key {action.key})",
                   lambda n=name: screen.run_action(f"act('{n}')"))
        for spec in specs():
            yield (f"Go to {spec.label}", f"screen {spec.order}", lambda m=spec.name: app.switch_mode(m))
        seen = set()
        for _key, active in screen.active_bindings.items():
            binding = active.binding
            if (not binding.description or binding.action.startswith(("act(", "switch_mode"))
                    or binding.action in seen or not active.enabled):
                continue
            if active.node.check_action(action_name(binding), action_params(binding)) is False:
                continue
            if active.node not in (app, screen) and binding.action not in own_actions(active.node):
                # a field's editing keys and scrolling, from Textual's Input: "Scroll Down ↓"
                # in the Erasure screen's field, where ↓ goes down to the list (term86)
                continue
            seen.add(binding.action)
            # the first letter up, the rest as written: capitalize() turned `F` into `f`,
            # another key (helper-78)
            description = binding.description[:1].upper() + binding.description[1:]
            yield (description, f"key {app.get_key_display(binding)}",
                   lambda a=binding.action, n=active.node: n.run_action(a))
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
