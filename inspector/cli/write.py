"""The commands that create a store or write entries through the gate: init and ingest."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..store import ingest as ingest_mod
from ..store.append import init_store
from ..store.logfile import store_paths, warn_once
from . import jsonout
from .common import JSON, NO_SCOPE, app, refuse_scope, run
from .lines import print_ingest, say


@app.command()
def init(store: Path = typer.Argument(..., help="Directory to create."), scope: Optional[str] = NO_SCOPE):
    """Create an empty store (directory 0700, log 0600)."""
    def go():
        refuse_scope(scope, "init")
        paths = init_store(store)
        say(f"created store {store}")
        warn_once(paths)        # a directory that held other files keeps its mode
    run(go, store, "create")


@app.command()
def ingest(store: Path, feed: Path = typer.Argument(..., metavar="FILE", help="Entries, one JSON object a line."),
           actor: str = typer.Option("importer:ingest", "--actor", help="Who writes these entries (class:id)."),
           skip_bad_lines: bool = typer.Option(False, "--skip-bad-lines",
                                               help="Write the good lines and list the bad ones."),
           as_json: bool = JSON, scope: Optional[str] = NO_SCOPE):
    """Append entries: new ids are written (or held by the write gate), known ids updated."""
    def go():
        refuse_scope(scope, "ingest")
        result = ingest_mod.ingest(store_paths(store), feed, actor=actor, skip_bad_lines=skip_bad_lines)
        refused = result.rejected and not skip_bad_lines
        if as_json:
            jsonout.print_json(result.as_json())
        elif not refused:               # a refusal is its one error line
            print_ingest(result)
        if refused:
            raise result.refusal()
    run(go, store, "write")
