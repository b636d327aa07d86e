"""`policy show STORE`: the key policy in force (the store's policy.toml, else the built-in
default) and its digest, which every protected_key hold reason names."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..store import policy as policy_mod
from ..store.logfile import store_paths
from . import jsonout, output
from .common import JSON, NO_SCOPE, app, refuse_scope, run

policy_app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                         help="The key policy: which sources may write which keys.")


@policy_app.command("show")
def show(store: Path, as_json: bool = JSON, scope: Optional[str] = NO_SCOPE):
    """The policy in force (policy.toml or the built-in default) and its digest."""
    def go():
        refuse_scope(scope, "policy show")
        doc = policy_mod.load(store_paths(store)).as_json()
        if as_json:
            jsonout.print_json(doc)
            return
        out = output.console()
        output.line(out, f"policy: {doc['source']}  sha256:{doc['digest']}")
        output.print_table(out, ["ENTITY", "ATTRIBUTE", "WRITERS", "MIN AUTHORITY"], [
            [output.cell(r["entity"]), output.cell(r["attribute"]),
             output.cell(", ".join(r["writers"])), str(r.get("min_authority", "–"))]
            for r in doc["protect"]])
    run(go, store)


app.add_typer(policy_app, name="policy", help="The key policy: which sources may write which keys.")
