"""`inspector import mem0|langgraph SOURCE STORE`: the importers' commands.

Human output is a short summary on stderr; `--json` prints the summary as the one JSON
document on stdout. A refusal is one line on stderr and exit 2 (the shared `run`), nothing
written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

import typer

from . import jsonout, output
from .common import app, refuse_scope, run
from .output import plural

import_app = typer.Typer(add_completion=False, no_args_is_help=True,
                         pretty_exceptions_enable=False,
                         help="Import another memory system's store into a new inspector store.")

JSON = typer.Option(False, "--json", help="Print exactly one JSON document on stdout.")
SKIP = typer.Option(False, "--skip-bad-rows",
                    help="Import the rows that can be mapped and list the others.")
NO_SCOPE = typer.Option(None, "--scope", hidden=True)


def _say(line: str) -> None:
    """One line on stderr, escapes visible, never wrapped (a message stays greppable)."""
    output.console(stderr=True).print(output.safe(line, one_line=True), soft_wrap=True)


def _run(scope: Optional[str], as_json: bool, work: Callable[[], dict],
         headline: Callable[[dict], str], store: Path) -> None:
    """Refuse --scope, run the import, print its summary; an InspectorError is one line."""
    def go() -> dict:
        refuse_scope(scope, "import")
        return work()
    doc = run(go, store, "create")
    if as_json:
        jsonout.print_json(doc)
    else:
        _print_summary(doc, headline(doc))


def _print_summary(doc: dict, headline: str) -> None:
    _say(headline)
    for skipped in doc["skipped_rows"]:
        _say(f"  skipped rowid {skipped['rowid']}: {skipped['reason']}")
    for memory_id, reason in doc["held"].items():
        _say(f"  held {memory_id}: {reason}")
    for note in doc["notes"]:
        _say(f"  note: {note}")


def _mem0_headline(doc: dict) -> str:
    return (f"imported {plural(doc['memories'], 'memory', 'memories')} "
            f"({plural(doc['events'], 'event', 'events')}) from "
            f"{doc['source']} (history layout {doc['layout']}, {doc['written_by']}) into "
            f"{doc['store']}: {doc['deleted']} deleted, {doc['without_subject']} without a "
            f"subject, {len(doc['held'])} held, "
            f"{plural(len(doc['skipped_rows']), 'row', 'rows')} skipped")


def _langgraph_headline(doc: dict) -> str:
    return (f"imported {plural(doc['entries'], 'entry', 'entries')} ({doc['kind']}) from "
            f"{doc['source']} into "
            f"{doc['store']}: {doc['expiring']} with expires_at ({doc['expired']} already "
            f"past), {len(doc['held'])} held, "
            f"{plural(len(doc['skipped_rows']), 'row', 'rows')} skipped")


@import_app.command("mem0")
def mem0(history_db: Path = typer.Argument(..., metavar="HISTORY_DB",
                                           help="mem0's history.db (any version's layout)."),
         store: Path = typer.Argument(..., metavar="STORE", help="New store directory to create."),
         skip_bad_rows: bool = SKIP, as_json: bool = JSON, scope: Optional[str] = NO_SCOPE):
    """A mem0 history.db: each memory one entry, each history row one event, times kept."""
    from ..importers.mem0 import import_mem0
    _run(scope, as_json, lambda: import_mem0(history_db, store, skip_bad_rows=skip_bad_rows),
         _mem0_headline, store)


@import_app.command("langgraph")
def langgraph(sqlite: Path = typer.Argument(..., metavar="SQLITE",
                                            help="A LangGraph SqliteStore database file."),
              store: Path = typer.Argument(..., metavar="STORE",
                                           help="New store directory to create."),
              kind: str = typer.Option("observation", "--kind",
                                       help="Kind of the entries: observation, claim or "
                                            "inference."),
              skip_bad_rows: bool = SKIP, as_json: bool = JSON, scope: Optional[str] = NO_SCOPE):
    """A LangGraph SqliteStore: one entry per (namespace, key); LangGraph keeps no history."""
    from ..importers.langgraph import import_langgraph
    _run(scope, as_json,
         lambda: import_langgraph(sqlite, store, kind=kind, skip_bad_rows=skip_bad_rows),
         _langgraph_headline, store)


app.add_typer(import_app, name="import", help="Import a store of another memory system.")
