"""`revert`: put the entries of an earlier batch back to the state each had before it, as a
new, audited batch (lazygit's undo through its reflog, with the log as the reflog).

Refused when an entry changed after the batch (its state is no longer what the batch left)
and for erase batches, which can never be undone. The `revert` events carry `"reverts":
BATCH` in their body.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from . import jsonsafe
from .actions import Plan, Request, belief_changes, check_reason
from .append import event_draft
from .errors import BadInput, Refused
from .load import Store
from .model import is_within
from .queries import sql

if TYPE_CHECKING:
    from .registry import Action


def plan_revert(action: "Action", store: Store, request: Request) -> Plan:
    """The revert of `request.batch` against the loaded store; nothing is written."""
    check_reason(request)
    batch = request.batch
    if not batch:
        raise BadInput("revert needs the batch to undo: `inspector revert STORE BATCH --reason R` "
                       "(`inspector audit --log` lists the batch ids)")
    events = store.con.execute(sql("revert_batch_events"), {"batch": batch}).fetchall()
    if not events:
        raise BadInput(f"no batch {batch!r} in {store.root}; nothing written")
    if any(op == "erase" for _, _, op, _ in events):
        raise Refused(f"batch {batch} is an erasure, which can never be reverted; nothing written")
    # An entry the batch wrote more than once (an import's ADD then UPDATE) goes back to its
    # state before the batch's first event of it; it changed after the batch only if an event
    # after the batch's last one of it came (helper-63: it read its own second event as one).
    firsts: dict[str, int] = {}
    lasts: dict[str, tuple[int, int]] = {}
    for seq, memory_id, _, last_seq in events:
        firsts.setdefault(memory_id, seq)
        lasts[memory_id] = (seq, last_seq)
    befores = _befores(store, list(firsts.values()))
    rows = {r[0]: r for r in store.con.execute(sql("action_entries"),
                                               {"ids": list(firsts)}).fetchall()}
    drafts, keys = [], set()
    for memory_id, first in firsts.items():
        seq, last_seq = lasts[memory_id]
        if last_seq != seq:
            raise Refused(f"{memory_id} changed after batch {batch} (seq {last_seq}); revert "
                          "applies only while the batch's entries are as it left them; nothing written")
        before = befores.get(first)
        if before is None:
            raise Refused(f"{memory_id}: batch {batch} created it, and revert restores earlier "
                          "states only (retract it instead); nothing written")
        # Another writer's log may hold a `before` that is no entry of this id (loaders and
        # audit read only `after`): revert would write it back as the entry's state (helper-66:
        # a traceback, or a refusal naming a line the log does not have).
        if not isinstance(before, dict) or before.get("id") != memory_id:
            what = (f"names id {before.get('id')!r}" if isinstance(before, dict)
                    else f"is {_JSON_TYPES.get(type(before), 'not an object')}, not an object")
            raise Refused(f"{memory_id}: the state before batch {batch} (body.before of seq "
                          f"{first}) {what}, so revert cannot restore it; nothing written "
                          f"(`inspector show {shlex.quote(str(store.root))} {memory_id}` shows "
                          "its history)")
        current = jsonsafe.loads_stored(rows[memory_id][5])
        drafts.append(_draft(memory_id, request, current, before, batch))
        # a malformed entry (another writer's) may have no key: it moves no belief
        keys.update(key for side in (current, before)
                    if isinstance(key := (side.get("entity"), side.get("attribute")), tuple)
                    and all(isinstance(k, str) for k in key))
    if request.scope is not None:       # a hard filter (DESIGN §5): the batch whole, or nothing
        outside = [d["memory_id"] for d in drafts
                   if not all(side.get("scope") is not None and is_within(side["scope"], request.scope)
                              for side in (d["body"]["before"], d["body"]["after"]))]
        if outside:
            n = len(outside)
            raise Refused(f"batch {batch} holds {n} entr{'y' if n == 1 else 'ies'} outside scope "
                          f"{request.scope!r}; nothing written (revert without --scope, which "
                          "reverts the batch whole)")
    changes = [c for c in belief_changes(store, drafts, sorted(keys))]
    return Plan(action, request, [d["memory_id"] for d in drafts], {}, drafts, changes)


_JSON_TYPES = {str: "a string", list: "an array", int: "a number", float: "a number",
               bool: "a boolean"}


def _draft(memory_id: str, request: Request, current: dict, before: dict, batch: str) -> dict:
    draft = event_draft("revert", memory_id, request.actor, before=current, after=before,
                        reason=request.reason)
    draft["body"]["reverts"] = batch
    return draft


def _befores(store: Store, seqs: list[int]) -> dict[int, dict | None]:
    """body.before of the events at `seqs`, read from the log (the tables keep only `after`)."""
    return _body_fields(store, seqs, "before")


def _body_fields(store: Store, seqs: list[int], name: str) -> dict[int, object]:
    """body[name] of the events at `seqs`, read from the log."""
    wanted, found = set(seqs), {}
    if not wanted:
        return found
    with open(store.paths.log, "rb") as log:
        for number, raw in enumerate(log, start=1):
            if number in wanted:
                event = jsonsafe.loads(raw)
                body = event["body"]
                found[event["seq"]] = body.get(name) if isinstance(body, dict) else None
                if len(found) == len(wanted):
                    break
    return found


def is_reverted(store: Store, batch: str) -> bool:
    """Whether a revert (by anyone, in any process) undid `batch` and was not itself
    reverted since: its entries are back as they were before it."""
    rows = store.con.execute(sql("reverts_after_batch"), {"batch": batch}).fetchall()
    if not rows:
        return False
    reverts = _body_fields(store, [seq for seq, _ in rows], "reverts")
    undid = {revert_batch for seq, revert_batch in rows if reverts.get(seq) == batch}
    undone = set(reverts.values())
    return any(revert_batch not in undone for revert_batch in undid)
