"""The commands that open the TUI: `open STORE` and `demo NAME` (a private copy of a bundled
sample store). The TUI is imported only when one of them runs, so the rest of the command
line never loads Textual."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from ..store.errors import BadInput
from ..store.logfile import store_paths
from ..store.model import scope_filter_error
from . import output
from ..samples import NAMES, copy_sample
from .common import OPERATOR, SCOPE, app, operator_name, run


@app.command("open")
def open_tui(store: Path, scope: Optional[str] = SCOPE,
             operator: Optional[str] = OPERATOR,
             read_only: bool = typer.Option(False, "--read-only",
                                            help="Look only: the actions that write are removed.")):
    """The TUI: beliefs, review queue, conflicts, quarantine, findings, audit, erasure."""
    def go():
        store_paths(store)
        if (why := scope_filter_error(scope)) is not None:
            raise BadInput(why)
        from ..tui.app import InspectorApp
        from ..tui.session import Session
        app_ = InspectorApp(Session(store, scope=scope, operator=operator_name(operator), read_only=read_only))
        app_.run()
        if app_.return_code:
            raise typer.Exit(app_.return_code)
    run(go, store)


@app.command()
def demo(name: str = typer.Argument("branch-contamination", help="A sample store: " + ", ".join(NAMES)),
         operator: Optional[str] = OPERATOR,
         copy_only: bool = typer.Option(False, "--copy-only", help="Copy the sample, print the "
                                        "copy's path on stdout, and open nothing.")):
    """Open the TUI on a private copy of a bundled sample store (the original stays clean)."""
    def go():
        operator_name(operator)     # refused before anything is copied (helper-78)
        target = copy_sample(name)
        if copy_only:
            sys.stdout.write(f"{target}\n")
            return
        output.say(f"working on a private copy: {target}")
        open_tui(target, None, operator, False)
        output.say(f"the copy is kept at {target}")
    run(go)
