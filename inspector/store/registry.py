"""The one registry of curation actions (DESIGN §5): the CLI makes its commands from it, the
TUI its bindings, palette entries and footer, so the two front ends cannot drift."""

from __future__ import annotations

from dataclasses import dataclass

ALL_LIVE = ("held", "active", "rejected", "quarantined", "retracted", "expired")


@dataclass(frozen=True)
class Action:
    name: str                      # the command and the event op
    key: str                       # TUI binding
    allowed_from: tuple[str, ...]  # statuses an entry may have
    to: str | None                 # status it gets (None: release restores the earlier one)
    cascade: str                   # "never", "default" (--no-cascade), "always", "optional" (--cascade)
    dangerous: bool                # hard to undo: the TUI asks twice as loudly
    help: str

    def allows(self, status: str) -> bool:
        return status in self.allowed_from


ACTIONS: dict[str, Action] = {a.name: a for a in (
    Action("approve", "a", ("held",), "active", "never", False,
           "Approve held writes: they become active and may be believed."),
    Action("reject", "x", ("held",), "rejected", "never", True,
           "Reject held writes: they are never believed."),
    Action("quarantine", "q", ("active", "held"), "quarantined", "default", False,
           "Quarantine entries and (by default) everything derived from them."),
    Action("release", "u", ("quarantined",), None, "optional", False,
           "Release quarantined entries to the status they had before."),
    Action("retract", "r", ("active", "held", "quarantined"), "retracted", "always", True,
           "Retract entries and everything derived from them."),
    Action("expire", "E", ("active",), "expired", "never", True,
           "Expire entries (or, with --due, every active entry whose expires_at has passed)."),
    Action("erase", "e", ALL_LIVE, "erased", "always", True,
           "Erase entries (or a data subject) everywhere, with a deletion certificate."),
)}
