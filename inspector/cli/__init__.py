"""The command line: Typer commands that call the core and print its answers (one JSON
document with --json, sanitized tables without). Each module registers its commands on the
one app in `common`; the TUI is imported only by `open` and `demo` when they run."""

from __future__ import annotations

from . import write, read, actions, policy, tui, importers  # noqa: F401,I001  (they register commands, in this order)
from .common import app
from .output import say


def main() -> None:
    """The entry point. Every error a command foresees is its own line (`common.run`); an
    operating-system error nobody foresaw is one line too, never a traceback."""
    try:
        app()
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        say(f"error: {where}{exc.strerror or exc}; nothing more was done: fix that and run "
            "`inspector audit --verify STORE` before writing again")
        raise SystemExit(2) from None
