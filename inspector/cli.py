"""The command line (DESIGN §8): Typer commands that call the core and print its answers.

It never imports the TUI's widgets; `open` imports the app only when it runs.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Optional

import typer

from . import output
from .store import audit as audit_mod
from .store import beliefs as beliefs_mod
from .store import entries, ingest as ingest_mod, lineage as lineage_mod
from .store.append import init_store
from .store.errors import BadInput, InspectorError
from .store.load import Store
from .store.logfile import store_paths
from .store.model import format_time, parse_time

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Inspect and curate an AI agent's long-term memory store.")

JSON = typer.Option(False, "--json", help="Print exactly one JSON document on stdout.")
SCOPE = typer.Option(None, "--scope", metavar="S",
                     help="Hard filter: load and show only entries inside scope S and its sub-scopes.")
NO_SCOPE = typer.Option(None, "--scope", hidden=True)


def fail(error: InspectorError) -> None:
    output.say(f"error: {error}")
    raise typer.Exit(error.exit_code)


def run(fn):
    """Turn InspectorError into its one-line message and exit code."""
    try:
        return fn()
    except InspectorError as error:
        fail(error)


def refuse_scope(scope: Optional[str], command: str) -> None:
    if scope is not None:
        raise BadInput(f"`{command}` works on the whole store and does not take --scope; "
                       "run it without --scope")


def time_option(text: Optional[str], name: str) -> Optional[datetime]:
    if text is None:
        return None
    try:
        return parse_time(text)
    except ValueError:
        raise BadInput(f"{name}: {text!r} is not an RFC 3339 time; write e.g. 2025-03-01T04:06:55Z") from None


def open_store(path: Path, scope: Optional[str] = None) -> Store:
    store = Store(path, scope=scope)
    for warning in store.state.warnings:
        if "incomplete last line" in warning:
            output.say(f"note: {warning}")
    return store


def where(store: Store) -> str:
    return f"{store.root}" + (f" inside scope {store.scope!r}" if store.scope is not None else "")


# -- commands -------------------------------------------------------------------------------

@app.command()
def init(store: Path = typer.Argument(..., help="Directory to create."), scope: Optional[str] = NO_SCOPE):
    """Create an empty store (directory 0700, log 0600)."""
    def go():
        refuse_scope(scope, "init")
        init_store(store)
        output.say(f"created store {store}")
    run(go)


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
        if as_json:
            output.print_json(result.as_json())
        else:
            output.print_ingest(result)
        if result.rejected and not skip_bad_lines:
            raise result.refusal()
    run(go)


@app.command()
def beliefs(store: Path, context: Optional[str] = typer.Option(None, "--context", metavar="C",
                                                               help="Answer for an agent working in scope C."),
            as_of: Optional[str] = typer.Option(None, "--as-of", metavar="T",
                                                help="Knowledge time (and valid time unless --valid-at)."),
            valid_at: Optional[str] = typer.Option(None, "--valid-at", metavar="T", help="Valid time."),
            as_json: bool = JSON, scope: Optional[str] = SCOPE):
    """What the agent believes by the inspector's rule: one row per scope and key."""
    def go():
        moment = beliefs_mod.Moment.resolve(time_option(as_of, "--as-of"), time_option(valid_at, "--valid-at"))
        spec = beliefs_mod.ViewSpec(context, moment)
        loaded = open_store(store, scope)
        beliefs_mod.materialize(loaded.con, spec)
        rows = [beliefs_mod.belief_json(r) for r in beliefs_mod.all_beliefs(loaded.con)]
        doc = {"beliefs": rows, "context": context, "as_of": format_time(moment.tk),
               "valid_at": format_time(moment.tv), "rule": beliefs_mod.RULE_NOTE}
        output.print_json(doc) if as_json else output.print_beliefs(doc)
    run(go)


@app.command()
def show(store: Path, memory_id: str = typer.Argument(..., metavar="ID"), as_json: bool = JSON,
         scope: Optional[str] = SCOPE):
    """One entry: its state, history, rivals in its own scope, and lineage."""
    def go():
        loaded = open_store(store, scope)
        doc = entries.show(loaded.con, memory_id, where(loaded))
        output.print_json(doc) if as_json else output.print_show(doc)
    run(go)


@app.command()
def held(store: Path, as_json: bool = JSON, scope: Optional[str] = SCOPE):
    """The held queue: writes the gate held for review, with the reason each was held."""
    def go():
        loaded = open_store(store, scope)
        doc = {"held": entries.held(loaded.con)}
        output.print_json(doc) if as_json else output.print_held(doc)
    run(go)


@app.command()
def conflicts(store: Path, as_json: bool = JSON, scope: Optional[str] = SCOPE):
    """Beliefs with markers (contested, claim/inference disagrees, vetoed newer)."""
    def go():
        loaded = open_store(store, scope)
        beliefs_mod.materialize(loaded.con, beliefs_mod.ViewSpec(None, beliefs_mod.Moment.resolve()))
        doc = {"conflicts": beliefs_mod.conflicts(loaded.con)}
        output.print_json(doc) if as_json else output.print_conflicts(doc)
    run(go)


@app.command()
def lineage(store: Path, memory_id: str = typer.Argument(..., metavar="ID"), as_json: bool = JSON,
            scope: Optional[str] = SCOPE):
    """What an entry rests on, what rests on it, and how many independent sources it has."""
    def go():
        loaded = open_store(store, scope)
        entries.require(loaded.con, memory_id, where(loaded))
        doc = lineage_mod.lineage(loaded.con, memory_id).as_json()
        output.print_json(doc) if as_json else output.print_lineage(doc)
    run(go)


@app.command()
def scan(store: Path, fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="SEV",
                                                          help="Exit 1 when a finding at or above SEV (low, medium, high) exists."),
         as_json: bool = JSON, scope: Optional[str] = SCOPE):
    """Findings: planted instructions, credentials, scope leaks, echoes, cycles, personal data."""
    def go():
        from .store import scan as scan_mod
        if fail_on is not None and fail_on not in ("low", "medium", "high"):
            raise BadInput(f"--fail-on must be low, medium or high, not {fail_on!r}")
        findings = scan_mod.scan(open_store(store, scope))
        doc = {"findings": [f.as_json() for f in findings]}
        output.print_json(doc) if as_json else output.print_findings(doc)
        if fail_on and scan_mod.at_or_above(findings, fail_on):
            raise typer.Exit(1)
    run(go)


@app.command()
def audit(store: Path, verify: bool = typer.Option(False, "--verify", help="Check every digest and link of the chain."),
          expect_head: Optional[str] = typer.Option(None, "--expect-head", metavar="SEQ:HASH",
                                                    help="Check that the line at SEQ still has HASH."),
          as_json: bool = JSON, scope: Optional[str] = NO_SCOPE):
    """The log's head and counts; with --verify, the tamper-evident chain checked line by line."""
    def go():
        refuse_scope(scope, "audit")
        paths = store_paths(store)
        if expect_head:
            try:
                audit_mod.parse_head(expect_head)
            except ValueError as exc:
                raise BadInput(f"--expect-head: {exc}") from None
        if verify or expect_head:
            doc = audit_mod.verify(paths, expect_head).as_json()
        else:
            doc = audit_summary(open_store(store))
        output.print_json(doc) if as_json else output.print_audit(doc)
        if doc["ok"] is False:
            raise typer.Exit(1)
    run(go)


@app.command("open")
def open_tui(store: Path, scope: Optional[str] = SCOPE,
             operator: Optional[str] = typer.Option(None, "--operator", help="Who acts (else $INSPECTOR_OPERATOR, else login)."),
             read_only: bool = typer.Option(False, "--read-only", help="Look only: no curation actions.")):
    """The TUI: beliefs, review queue, conflicts, quarantine, findings, audit, erasure."""
    def go():
        from .cli_actions import operator_name
        store_paths(store)
        from .tui.app import InspectorApp
        from .tui.session import Session
        app_ = InspectorApp(Session(store, scope=scope, operator=operator_name(operator), read_only=read_only))
        app_.run()
        if app_.return_code:
            raise typer.Exit(app_.return_code)
    run(go)


@app.command()
def demo(name: str = typer.Argument("branch-contamination", help="A sample store: " + ", ".join(
        ("branch-contamination", "refund-window", "moved-city", "report-language", "multi-tenant"))),
         operator: Optional[str] = typer.Option(None, "--operator", help="Who acts.")):
    """Open the TUI on a private copy of a bundled sample store (the original stays clean)."""
    def go():
        from .samples import copy_sample
        target = copy_sample(name)
        output.say(f"working on a private copy: {target}")
        open_tui(target, None, operator, False)
        output.say(f"the copy is kept at {target}")
    run(go)


def audit_summary(store: Store) -> dict:
    """Counts and head from a structural load; the chain itself is not checked (ok: null)."""
    counts = store.con.execute(
        "SELECT count(*), count(*) FILTER (WHERE redacted) FROM versions").fetchone()
    return {"ok": None, "events": counts[0], "head": store.head, "redacted": counts[1],
            "unchained": store.state.unchained, "first_bad_seq": None,
            "problem": "not verified: run with --verify to check the chain",
            "torn_bytes": len(store.state.torn)}


def main() -> None:
    app()


def _register() -> None:
    from .cli_actions import register
    from .importers.cli import import_app
    register(app)
    app.add_typer(import_app, name="import", help="Import a store of another memory system.")


_register()


if __name__ == "__main__":
    main()
