"""The one registry of curation actions: each entry is executable data — what it may act on,
how it plans and applies, which options the command line gives it and how it is confirmed.
The CLI makes its commands from it, the TUI its bindings, palette entries and key bar, so the
two front ends cannot drift and neither branches on an action's name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from . import actions, erasure, revert
from .actions import Request
from .errors import BadInput

ALL_LIVE = ("held", "active", "rejected", "quarantined", "retracted", "expired")
ANY_LIVE = ("any status but erased",)


@dataclass(frozen=True)
class Option:
    """A command-line option an action takes beyond the shared ones (ids, selectors, reason…).
    `field` is the Request field it fills."""

    field: str
    flags: str                     # "--cascade/--no-cascade", "--subject"
    default: Any
    help: str
    type: type = bool
    metavar: str | None = None
    argument: bool = False         # a positional argument (revert STORE BATCH), not a flag


@dataclass(frozen=True)
class Action:
    name: str                      # the command and the event op
    key: str                       # default TUI key (remappable by its binding id, act.<name>)
    allowed_from: tuple[str, ...]  # statuses an entry may have
    to: str | None                 # status it gets (None: computed by the planner)
    cascade: str                   # "never", "default" (--no-cascade), "always", "optional" (--cascade)
    irreversible: bool             # hard to take back: the TUI confirms it louder
    help: str
    planner: Callable[..., Any] = actions.plan_status_change
    applier: Callable[..., Any] = actions.apply
    options: tuple[Option, ...] = ()
    selectors: bool = True         # takes --source / --principal
    takes_ids: bool = True
    whole_store: bool = False      # refuses --scope: works on the whole store
    confirm: str = "reason"        # the TUI asks for: "reason", or "subject" (typed) and reason
    document: str = "plan"         # what the CLI prints: "plan" or "certificate"
    dangerous: bool = True         # it writes the log: read-only mode removes it (k9s ClearDanger)
    rewrites_log: bool = False     # rewrites earlier lines (erase): the chain is checked again after

    def allows(self, status: str) -> bool:
        """Erase takes any entry not erased yet, a malformed one with an unknown status too."""
        if self.allowed_from == ANY_LIVE:
            return status != "erased"
        return status in self.allowed_from

    def plan(self, store, request: Request):
        """What the action would do (nothing is written)."""
        return self.planner(self, store, request)

    def apply(self, store, plan):
        """Write a reviewed plan under the store's lock, if the log has not changed it."""
        return self.applier(self, store, plan)

    @property
    def binding_id(self) -> str:
        return f"act.{self.name}"


CASCADE = Option("cascade", "--cascade/--no-cascade", True,
                 "Also act on everything derived from them.")
RELEASE_CASCADE = Option("cascade", "--cascade", False,
                         "Also release the descendants the same batch quarantined.")
DUE = Option("due", "--due", False, "Select every active entry whose expires_at has passed.")
SUBJECT = Option("subject", "--subject", None, "Erase everything about data subject S.",
                 type=str, metavar="S")

ACTIONS: dict[str, Action] = {a.name: a for a in (
    Action("approve", "a", ("held",), "active", "never", False,
           "Approve held writes: they become active and may be believed."),
    Action("reject", "x", ("held",), "rejected", "never", True,
           "Reject held writes: they are never believed."),
    Action("quarantine", "Q", ("active", "held"), "quarantined", "default", False,
           "Quarantine entries and (by default) everything derived from them.", options=(CASCADE,)),
    Action("release", "u", ("quarantined",), None, "optional", False,
           "Release quarantined entries to the status they had before.", options=(RELEASE_CASCADE,)),
    Action("retract", "r", ("active", "held", "quarantined"), "retracted", "always", True,
           "Retract entries and everything derived from them."),
    Action("expire", "E", ("active",), "expired", "never", True,
           "Expire entries (or, with --due, every active entry whose expires_at has passed).",
           options=(DUE,)),
    Action("revert", "z", ALL_LIVE, None, "never", True,
           "Put the entries of an earlier batch back to the state they had before it.",
           planner=revert.plan_revert, selectors=False, takes_ids=False,
           options=(Option("batch", "BATCH", ..., "The batch to revert (its id, as `audit` "
                           "and the action that wrote it print it).", type=str, metavar="BATCH",
                           argument=True),)),
    Action("erase", "e", ANY_LIVE, "erased", "always", True,
           "Erase entries (or a data subject) everywhere, with a deletion certificate.",
           planner=erasure.plan_erasure, applier=erasure.apply_erasure, options=(SUBJECT,),
           selectors=False, whole_store=True, confirm="subject", document="certificate",
           rewrites_log=True),
)}


def available(read_only: bool) -> list[Action]:
    """The actions an operator may use: read-only mode removes the dangerous ones, those that
    write the log (as k9s's ClearDanger does) — today every curation action."""
    return [a for a in ACTIONS.values() if not (read_only and a.dangerous)]


def plan(store, request: Request):
    """The plan of `request` (its action named by request.action); nothing is written."""
    action = ACTIONS.get(request.action)
    if action is None:
        raise BadInput(f"unknown action {request.action!r}; one of {', '.join(ACTIONS)}")
    return action.plan(store, request)


def apply(store, reviewed):
    """Apply a reviewed plan under the store's lock (refused when the log changed it)."""
    return reviewed.action.apply(store, reviewed)
