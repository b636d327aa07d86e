"""The read commands: beliefs, show, held, conflicts, lineage, scan, audit. Each loads the
store (or the part inside --scope), asks the core, and prints one JSON document with --json or
sanitized tables without it."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..store import audit as audit_mod
from ..store import beliefs as beliefs_mod
from ..store import entries, lineage as lineage_mod
from ..store.errors import BadInput
from ..store.load import Store
from ..store.logfile import store_paths
from ..store.model import format_time
from ..store.queries import sql
from . import output
from .common import JSON, NO_SCOPE, SCOPE, app, open_store, refuse_scope, run, time_option, where


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
        from ..store import scan as scan_mod
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


def audit_summary(store: Store) -> dict:
    """Counts and head from a structural load; the chain itself is not checked (ok: null)."""
    counts = store.con.execute(sql("audit_counts")).fetchone()
    return {"ok": None, "events": counts[0], "head": store.head, "redacted": counts[1],
            "unchained": store.state.unchained, "first_bad_seq": None,
            "problem": "not verified: run with --verify to check the chain",
            "torn_bytes": len(store.state.torn)}
