"""Action commands (DESIGN §5, §8), made from the registry: approve, reject, quarantine,
release, retract, expire. Each plans, prints the plan with --dry-run, or applies it."""

from __future__ import annotations

import getpass
import inspect
import os
import re
from typing import List, Optional

import typer

from . import output
from .store.actions import Request, apply, make_plan
from .store.errors import BadInput
from .store.load import Store
from .store.registry import ACTIONS, Action

OPERATOR_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]*")


def operator_name(given: Optional[str]) -> str:
    """--operator, else $INSPECTOR_OPERATOR, else the login name (DESIGN §5)."""
    name = given or os.environ.get("INSPECTOR_OPERATOR") or getpass.getuser()
    if not OPERATOR_NAME.fullmatch(name or ""):
        raise BadInput(f"operator name {name!r} must be letters, digits, . _ @ - (an identifier, "
                       "never content); pass --operator NAME")
    return name


def _parameters(action: Action) -> list[inspect.Parameter]:
    P = inspect.Parameter
    params = [
        P("store", P.POSITIONAL_OR_KEYWORD, annotation=str, default=typer.Argument(..., metavar="STORE")),
        P("ids", P.POSITIONAL_OR_KEYWORD, annotation=Optional[List[str]],
          default=typer.Argument(None, metavar="[ID]...", help="Entries to act on.")),
        P("reason", P.KEYWORD_ONLY, annotation=str,
          default=typer.Option(..., "--reason", help="Why (required; goes into the audit log).")),
        P("source", P.KEYWORD_ONLY, annotation=Optional[str],
          default=typer.Option(None, "--source", help="Select entries with exactly this source.")),
        P("principal", P.KEYWORD_ONLY, annotation=Optional[str],
          default=typer.Option(None, "--principal", help="Select entries whose source principal is this.")),
        P("operator", P.KEYWORD_ONLY, annotation=Optional[str],
          default=typer.Option(None, "--operator", help="Who acts (else $INSPECTOR_OPERATOR, else login).")),
        P("dry_run", P.KEYWORD_ONLY, annotation=bool,
          default=typer.Option(False, "--dry-run", help="Print the plan; write nothing.")),
        P("as_json", P.KEYWORD_ONLY, annotation=bool,
          default=typer.Option(False, "--json", help="Print exactly one JSON document.")),
        P("scope", P.KEYWORD_ONLY, annotation=Optional[str],
          default=typer.Option(None, "--scope", metavar="S", help="Act only inside scope S.")),
    ]
    if action.cascade == "default":
        params.append(P("cascade", P.KEYWORD_ONLY, annotation=bool, default=typer.Option(
            True, "--cascade/--no-cascade", help="Also act on everything derived from them.")))
    if action.cascade == "optional":
        params.append(P("cascade", P.KEYWORD_ONLY, annotation=bool, default=typer.Option(
            False, "--cascade", help="Also release the descendants the same batch quarantined.")))
    if action.name == "expire":
        params.append(P("due", P.KEYWORD_ONLY, annotation=bool, default=typer.Option(
            False, "--due", help="Select every active entry whose expires_at has passed.")))
    return params


def _command(action: Action):
    def command(**kw):
        from .cli import run

        def go():
            request = Request(action.name, kw["reason"], operator_name(kw["operator"]),
                              tuple(kw["ids"] or ()), kw["source"], kw["principal"],
                              kw.get("due", False), kw.get("cascade"), kw["scope"])
            store = Store(kw["store"])
            plan = make_plan(store, request)
            if not kw["dry_run"]:
                plan = apply(store, plan)
            doc = plan.as_json(kw["dry_run"])
            output.print_json(doc) if kw["as_json"] else output.print_plan(doc)
        run(go)

    command.__signature__ = inspect.Signature(_parameters(action))
    command.__name__ = action.name
    command.__doc__ = action.help
    return command


def erase(store: str = typer.Argument(..., metavar="STORE"),
          ids: Optional[List[str]] = typer.Argument(None, metavar="[ID]...", help="Entries to erase."),
          subject: Optional[str] = typer.Option(None, "--subject", metavar="S",
                                                help="Erase everything about data subject S."),
          reason: str = typer.Option(..., "--reason", help="Why (a ticket id; never the subject)."),
          operator: Optional[str] = typer.Option(None, "--operator", help="Who acts."),
          dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan; write nothing."),
          as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON document."),
          scope: Optional[str] = typer.Option(None, "--scope", hidden=True)):
    """Erase a data subject (or entries) everywhere the tool keeps data, with a certificate."""
    from .cli import refuse_scope, run
    from .store.erasure import EraseRequest, apply_erasure, plan_erasure

    def go():
        refuse_scope(scope, "erase")
        request = EraseRequest(reason, operator_name(operator), subject, tuple(ids or ()))
        loaded = Store(store)
        plan = plan_erasure(loaded, request)
        if not dry_run:
            plan = apply_erasure(loaded, plan)
        doc = plan.as_json(dry_run)
        output.print_json(doc) if as_json else output.print_certificate(doc)
    run(go)


def register(app: typer.Typer) -> None:
    for action in ACTIONS.values():
        if action.name != "erase":
            app.command(name=action.name, help=action.help)(_command(action))
    app.command(name="erase", help=ACTIONS["erase"].help)(erase)
