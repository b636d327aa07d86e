"""The action commands, made from the registry: one command per entry (approve … erase,
revert), with the shared options, the entry's own options, and the document it prints. Each
plans, prints the plan with --dry-run (no reason needed), or applies it."""

from __future__ import annotations

import inspect
from typing import List, Optional

import typer

from ..store.actions import Request
from ..store.errors import BadInput
from ..store.load import Store
from ..store.registry import ACTIONS, Action, Option
from . import jsonout, output
from .lines import say
from .common import app, operator_name, refuse_scope, run

PRINTERS = {"plan": output.print_plan, "certificate": output.print_certificate}
DRY_REASON = "(dry run: no reason given)"
P = inspect.Parameter


def _option(option: Option) -> inspect.Parameter:
    annotation = Optional[option.type] if option.default is None else option.type
    if option.argument:
        return P(option.field, P.POSITIONAL_OR_KEYWORD, annotation=annotation,
                 default=typer.Argument(option.default, metavar=option.metavar, help=option.help))
    return P(option.field, P.KEYWORD_ONLY, annotation=annotation, default=typer.Option(
        option.default, option.flags, help=option.help, metavar=option.metavar))


def _parameters(action: Action) -> list[inspect.Parameter]:
    params = [P("store", P.POSITIONAL_OR_KEYWORD, annotation=str,
                default=typer.Argument(..., metavar="STORE"))]
    if action.takes_ids:
        params.append(P("ids", P.POSITIONAL_OR_KEYWORD, annotation=Optional[List[str]],
                        default=typer.Argument(None, metavar="[ID]...", help="Entries to act on.")))
    params += [_option(o) for o in action.options if o.argument]
    params.append(P("reason", P.KEYWORD_ONLY, annotation=Optional[str], default=typer.Option(
        None, "--reason", help="Why (required unless --dry-run; kept in the audit log).")))
    if action.selectors:
        params += [
            P("source", P.KEYWORD_ONLY, annotation=Optional[str], default=typer.Option(
                None, "--source", help="Select entries with exactly this source.")),
            P("principal", P.KEYWORD_ONLY, annotation=Optional[str], default=typer.Option(
                None, "--principal", help="Select entries whose source principal is this."))]
    params += [_option(o) for o in action.options if not o.argument]
    params += [
        P("operator", P.KEYWORD_ONLY, annotation=Optional[str], default=typer.Option(
            None, "--operator", help="Who acts (else $INSPECTOR_OPERATOR, else login).")),
        P("dry_run", P.KEYWORD_ONLY, annotation=bool,
          default=typer.Option(False, "--dry-run", help="Print the plan; write nothing.")),
        P("as_json", P.KEYWORD_ONLY, annotation=bool,
          default=typer.Option(False, "--json", help="Print exactly one JSON document.")),
        P("scope", P.KEYWORD_ONLY, annotation=Optional[str], default=typer.Option(
            None, "--scope", metavar="S", hidden=action.whole_store,
            help="Act only inside scope S."))]
    return params


def request_of(action: Action, kw: dict) -> Request:
    """The Request the command line asked for (a dry run may leave the reason out)."""
    reason, pending = kw.get("reason"), False
    if reason is None:
        if not kw["dry_run"]:
            raise BadInput(f"`{action.name}` needs --reason R (why; it goes into the audit log), "
                           "or --dry-run to see the plan first")
        reason, pending = DRY_REASON, True
    if action.whole_store:
        refuse_scope(kw.get("scope"), action.name)
    fields = {o.field: kw[o.field] for o in action.options}
    return Request(action.name, reason, operator_name(kw.get("operator")), tuple(kw.get("ids") or ()),
                   kw.get("source"), kw.get("principal"), scope=kw.get("scope"),
                   reason_pending=pending, **fields)


def _command(action: Action):
    def command(**kw):
        def go():
            request = request_of(action, kw)
            store = Store(kw["store"])
            plan = action.plan(store, request)
            if not kw["dry_run"]:
                plan = action.apply(store, plan)
            doc = plan.as_json(kw["dry_run"])
            jsonout.print_json(doc) if kw["as_json"] else PRINTERS[action.document](doc)
            for warning in getattr(plan, "warnings", ()):
                say(f"warning: {warning}")
        run(go, kw["store"], "read" if kw["dry_run"] else "write")

    command.__signature__ = inspect.Signature(_parameters(action))
    command.__name__ = action.name
    command.__doc__ = action.help
    return command


for _action in ACTIONS.values():
    app.command(name=_action.name, help=_action.help)(_command(_action))
