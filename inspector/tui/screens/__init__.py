"""The screens, found by discovery: every module here that decorates a screen class with
`screen(ScreenSpec(...))` adds it to the tab bar at its spec's `order`."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from textual.binding import Binding

from ..spec import ScreenSpec

_FOUND: dict[str, tuple[ScreenSpec, type]] = {}


def screen(spec: ScreenSpec):
    """Class decorator: this class is the screen `spec` declares, with the spec's actions
    bound to their registry keys (binding ids act.<name>, remappable in the keymap)."""
    from ...store.registry import ACTIONS

    def register(cls: type) -> type:
        cls.SPEC = spec
        cls.BINDINGS = list(getattr(cls, "BINDINGS", [])) + [
            Binding(ACTIONS[n].key, f"act('{n}')", n, tooltip=ACTIONS[n].help,
                    id=ACTIONS[n].binding_id) for n in spec.actions]
        cls._merged_bindings = cls._merge_bindings()   # Textual merges at class creation
        _FOUND[spec.name] = (spec, cls)
        return cls
    return register


@cache
def specs() -> tuple[ScreenSpec, ...]:
    """Every screen's spec, in tab order."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    return tuple(sorted((s for s, _ in _FOUND.values()), key=lambda s: s.order))


def screen_classes() -> dict[str, type]:
    """Mode name -> screen class, in tab order (the app's MODES)."""
    return {spec.name: _FOUND[spec.name][1] for spec in specs()}
