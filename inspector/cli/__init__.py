"""The command line: Typer commands that call the core and print its answers (one JSON
document with --json, sanitized tables without). Each module registers its commands on the
one app in `common`; the TUI is imported only by `open` and `demo` when they run."""

from __future__ import annotations

from . import write, read, actions, policy, tui, importers  # noqa: F401,I001  (they register commands, in this order)
from .common import app


def main() -> None:
    app()
