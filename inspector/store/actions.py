"""Planned, then applied, curation actions (DESIGN §5).

A plan is a plain value: the entries it changes (with the cascade), the events it would
append and the belief changes it causes. `apply` re-plans under the store's lock and refuses
when the log changed in a way that alters the plan; otherwise it appends the plan's events
in one batch.
"""

from __future__ import annotations

import secrets
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from . import jsonsafe
from . import beliefs
from .append import LogWriter, event_draft
from .chain import canonical
from .contract import is_unicode
from .errors import BadInput, Refused, Stale
from .gate import fold
from .load import Store
from .model import (STATUSES, id_named, is_within, now_utc, scope_blank_error, scope_filter_error,
                    seq_span)

if TYPE_CHECKING:
    from .registry import Action
from .queries import sql


@dataclass(frozen=True)
class Request:
    """What the operator asked for."""

    action: str
    reason: str
    operator: str
    ids: tuple[str, ...] = ()
    source: str | None = None
    principal: str | None = None
    due: bool = False
    cascade: bool | None = None    # None: the action's default
    scope: str | None = None
    subject: str | None = None     # erase --subject
    batch: str | None = None       # revert --batch
    # The reason is not known yet (a dry run given none, the TUI's plan before it asks): a
    # placeholder stands in, which no check of what the reason says may judge.
    reason_pending: bool = False

    def __post_init__(self):
        if (why := scope_filter_error(self.scope)) is not None:
            raise BadInput(why)

    @property
    def actor(self) -> str:
        return f"operator:{self.operator}"


@dataclass
class Plan:
    action: "Action"
    request: Request
    affected: list[str]
    skipped: dict[str, str]              # id -> its status, which the action does not allow
    drafts: list[dict]
    belief_changes: list[dict]
    hidden: int = 0                      # affected entries hidden by a TUI filter (set by callers)
    # Entries whose id reads as one named but is spelled otherwise (other_ids): not taken.
    ids_spelled_otherwise: list[str] = field(default_factory=list)
    batch: str | None = None
    seqs: list[int] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """What the operator must know before it is applied (printed, not in the log)."""
        ids = self.ids_spelled_otherwise
        return [said_otherwise(ids, f"this {self.request.action}")] if ids else []

    def fingerprint(self) -> bytes:
        """What must not change between review and apply."""
        return canonical([self.affected, sorted(self.skipped.items()),
                          [d["body"]["before"] for d in self.drafts], self.belief_changes])

    def as_json(self, dry_run: bool) -> dict:
        return {"op": self.request.action, "batch": None if dry_run else self.batch,
                "dry_run": dry_run, "affected": self.affected, "skipped": sorted(self.skipped),
                "belief_changes": self.belief_changes, "operator": self.request.operator,
                "reason": None if self.request.reason_pending else self.request.reason,
                "skipped_status": dict(sorted(self.skipped.items())),
                "events": [{"memory_id": d["memory_id"], "op": d["op"],
                            "from": (d["body"]["before"] or {}).get("status"),
                            "to": d["body"]["after"].get("status")}
                           for d in self.drafts],
                "seqs": self.seqs}


    def done(self) -> str:
        """One line for the operator once the plan is applied."""
        n = len(self.affected)
        return (f"{self.request.action}: {n} {'entry' if n == 1 else 'entries'} in batch "
                f"{self.batch} ({seq_span(self.seqs)})")


def check_reason(request: Request) -> None:
    # invisible characters alone are no reason (helper-66: a zero-width space was taken), nor
    # those drawn as nothing or as a blank (fold drops them: a Hangul filler was taken)
    if not fold(request.reason):
        raise BadInput("--reason is required and must not be empty: say why, for the audit log")
    _check_unicode(request)


def _check_unicode(request: Request) -> None:
    """Text that is not valid Unicode (a lone surrogate: bytes a terminal gave that are not
    UTF-8) cannot be written to the log or a certificate: refused before anything is."""
    fields = {"--reason": request.reason, "the operator": request.operator,
              "--source": request.source, "--principal": request.principal,
              "--scope": request.scope, "--subject": request.subject, "--batch": request.batch}
    fields.update((f"id {i + 1}", memory_id) for i, memory_id in enumerate(request.ids))
    for name, text in fields.items():
        if text is not None and not is_unicode(text):
            raise BadInput(f"{name} is not valid UTF-8 text (a lone surrogate): give it in UTF-8")


def check_request(action: "Action", request: Request) -> None:
    check_reason(request)
    for flag, value, example in (("--source", request.source, "tool:retriever/main-index"),
                                 ("--principal", request.principal, "web:forum.example.com")):
        if value == "":      # matches no entry: was ignored beside ids, "no selector" alone
            raise BadInput(f"{flag} '' names nothing; give one (e.g. {flag} {example}) or leave "
                           f"{flag} out; nothing written")
    if not (request.ids or request.source or request.principal or request.due):
        raise BadInput(f"`{action.name}` needs at least one id or a selector (--source, --principal"
                       + (", --due" if any(o.field == "due" for o in action.options) else "") + ")")


def other_ids(store: Store, ids, taken: list[str]) -> list[str]:
    """The live entries, beyond `taken`, whose id is one of `ids` spelled otherwise: equal once
    folded (`fold`), as an id in NFD is to the same id in NFC. Drawn alike on every screen, such
    an id typed names the other entry: an action by id says them, never takes them."""
    wanted, skip = {fold(i) for i in ids}, set(taken) | set(ids)
    letters = "".join(sorted(_ascii_letters(wanted)))
    found = store.con.execute(sql("erase_id_spellings"), {
        "ids": list(ids), "letters": f"[{letters}]*" if letters else ""}).fetchall()
    return sorted(memory_id for (memory_id,) in found
                  if memory_id not in skip and fold(memory_id) in wanted)


def _ascii_letters(folded: set[str]) -> set[str]:
    """The ASCII letters and digits an id can hold, lower-cased, if it folds to one of `folded`:
    fold keeps such a character, lower-cased, or composes it with the combining marks after it
    (e + U+0301: é), which NFD takes apart again."""
    return {c for text in folded for c in unicodedata.normalize("NFD", text)
            if c.isascii() and c.isalnum()}


def spelled_otherwise_hint(store: Store, memory_id: str) -> str:
    """What an id not found adds to its error: the live ids it reads as (other_ids), or ""."""
    others = other_ids(store, [memory_id], [])
    return f" (an id spelled otherwise: {', '.join(map(ascii, others[:3]))})" if others else ""


def said_otherwise(ids: list[str], action: str) -> str:
    """The warning that names other_ids' `ids`, escaped so that they can be told apart."""
    shown = ", ".join(ascii(i) for i in ids[:8]) + (", …" if len(ids) > 8 else "")
    said = "entry has an id that reads" if len(ids) == 1 else "entries have ids that read"
    return (f"{len(ids)} other {said} as one given but spelled otherwise (case, width, Unicode "
            f"form, spaces or invisible characters), and {action} does not take "
            f"{'it' if len(ids) == 1 else 'them'}: {shown}; check which entry you meant "
            "(`inspector show STORE ID`)")


def _rows(store: Store, ids: list[str]) -> dict[str, dict]:
    """The named entries' current state. An erased entry has none when its last line is a
    write that erasure redacted (a backup restored from before the erase event): it is
    `erased`, which no action but a refused one names."""
    rows = store.con.execute(sql("action_entries"), {"ids": ids}).fetchall()
    return {r[0]: {"status": r[1], "scope": r[2], "entity": r[3], "attribute": r[4],
                   "state": None if r[5] is None else jsonsafe.loads_stored(r[5])} for r in rows}


def _inside(row: dict, scope: str | None) -> bool:
    return scope is None or (row["scope"] is not None and is_within(row["scope"], scope))


def _named(store: Store, request: Request, action: "Action") -> list[str]:
    rows = _rows(store, list(request.ids))
    where = f"{store.root}" + (f" inside scope {request.scope!r}" if request.scope is not None else "")
    for memory_id in request.ids:
        row = rows.get(memory_id)
        if row is None or not _inside(row, request.scope):
            hint = spelled_otherwise_hint(store, memory_id) if row is None else ""
            raise BadInput(f"{id_named(memory_id)}: not found in {where}{hint}; nothing written")
        if not action.allows(row["status"]):
            status = row["status"]
            if status in STATUSES:
                raise Refused(f"{memory_id} is {status}: {action.name} applies only to "
                              f"{', '.join(action.allowed_from)} entries; nothing written")
            said = "no status" if status is None else f"status {str(status)[:40]!r}"
            raise Refused(f"{memory_id} has {said} (a malformed entry, another writer's): "
                          f"{action.name} applies only to {', '.join(action.allowed_from)} "
                          "entries, and no status can be put back after it; erase it, or have "
                          "its writer write it again; nothing written")
    return list(dict.fromkeys(request.ids))


def _selected(store: Store, request: Request, action: "Action") -> tuple[list[str], dict[str, str]]:
    """Entries the selectors match: those in an allowed status, and the others (skipped)."""
    if not (request.source or request.principal or request.due):
        return [], {}
    ids = [i for (i,) in store.con.execute(sql("action_select"), {
        "source": request.source, "principal": request.principal, "due": request.due,
        "now": now_utc(), "scope": request.scope}).fetchall()]
    rows = _rows(store, ids)
    chosen = [i for i in ids if action.allows(rows[i]["status"])]
    taken = set(chosen)       # (a list here made 100,000 selected entries take 48 s: helper-69)
    return chosen, {i: rows[i]["status"] for i in ids if i not in taken}


def _cascade(store: Store, request: Request, action: "Action", targets: list[str]) -> list[str]:
    wanted = {"never": False, "always": True, "default": request.cascade is not False,
              "optional": request.cascade is True}[action.cascade]
    if not wanted or not targets:
        return []
    down = [i for (i,) in store.con.execute(sql("descendants_of"), {"ids": targets}).fetchall()]
    if action.to is None:            # release: only what the same quarantine batch took
        down = _same_batch(store, targets, down)
    return down


def _same_batch(store: Store, targets: list[str], down: list[str]) -> list[str]:
    """release --cascade: only descendants that the targets' quarantine batches quarantined."""
    batches = [b for _, b, _ in store.con.execute(sql("quarantine_origin"), {"ids": targets}).fetchall() if b]
    members = {m for m, _ in store.con.execute(sql("batch_members"), {"batches": batches}).fetchall()}
    return [i for i in down if i in members]


def _release_to(store: Store, ids: list[str]) -> dict[str, str]:
    rows = store.con.execute(sql("quarantine_origin"), {"ids": ids}).fetchall()
    return {memory_id: before or "active" for memory_id, _, before in rows}


def check_scope(store: Store, scope: str | None) -> None:
    """BadInput for a --scope with a blank at a segment's edge that no entry lies inside."""
    why = scope_blank_error(scope)
    if why is not None and not store.con.execute(sql("scope_holds"), {"scope": scope}).fetchone()[0]:
        raise BadInput(why)


def plan_status_change(action: "Action", store: Store, request: Request) -> Plan:
    """The plan of a status change (approve … expire) against the loaded store; nothing is
    written."""
    check_request(action, request)
    check_scope(store, request.scope)
    targets = _named(store, request, action)
    chosen, skipped = _selected(store, request, action)
    named = set(targets)
    targets += [i for i in chosen if i not in named]
    if not targets:
        raise Refused(f"nothing to {action.name}: no entry matches in an allowed status "
                      f"({', '.join(action.allowed_from)}); nothing written")
    down = _cascade(store, request, action, targets)
    rows = _rows(store, targets + down)
    outside = [i for i in down if not _inside(rows[i], request.scope)]
    if outside:
        raise Refused(f"the cascade reaches {len(outside)} entries outside scope {request.scope!r}; "
                      "nothing written (act without --scope, or with --no-cascade)")
    affected = targets + [i for i in down if action.allows(rows[i]["status"])]
    acted = set(affected)
    skipped.update({i: rows[i]["status"] for i in down if i not in acted})
    drafts = _drafts(store, request, action, affected, rows)
    changes = [c for c in belief_changes(store, drafts, _focus(store, rows, affected))
               if request.scope is None or is_within(c["scope"], request.scope)]
    return Plan(action, request, affected, skipped, drafts, changes,
                ids_spelled_otherwise=other_ids(store, request.ids, affected) if request.ids else [])


def _drafts(store: Store, request: Request, action: "Action", affected: list[str],
            rows: dict[str, dict]) -> list[dict]:
    to = _release_to(store, affected) if action.to is None else {i: action.to for i in affected}
    return [event_draft(action.name, i, request.actor, before=rows[i]["state"],
                        after={**rows[i]["state"], "status": to[i]}, reason=request.reason)
            for i in affected]


def _focus(store: Store, rows: dict[str, dict], affected: list[str]) -> list[tuple[str, str]]:
    """Keys whose beliefs the plan can change: the affected entries' and their dependents'."""
    down = [i for (i,) in store.con.execute(sql("descendants_of"), {"ids": affected}).fetchall()]
    rows = {**rows, **_rows(store, [i for i in down if i not in rows])}
    return sorted({(r["entity"], r["attribute"]) for r in rows.values()
                   if r["entity"] is not None and r["attribute"] is not None})   # malformed: no key


def belief_changes(store: Store, drafts: list[dict], keys: list[tuple[str, str]]) -> list[dict]:
    """Store-wide beliefs of `keys` now, and with `drafts` appended: the rows that differ."""
    tk = now_utc().replace(microsecond=0) + beliefs.SETTLE
    with store.scratch():
        before = _focus_table(store, tk, keys)
        store.stage(drafts)
        after = _focus_table(store, tk, keys)      # the drafts may cite other entries
    changes = []
    for key in sorted(set(before) | set(after), key=lambda k: (k[1], k[2], k[0])):
        if before.get(key) != after.get(key):
            changes.append({"scope": key[0], "entity": key[1], "attribute": key[2],
                            "before": before.get(key), "after": after.get(key)})
    return changes


def _focus_table(store: Store, tk, keys: list[tuple[str, str]]) -> dict[tuple, dict]:
    beliefs.judge_keys(store.con, tk, keys)
    rows = store.con.execute(sql("beliefs_focus"), {"tk": tk}).fetchall()
    return {(scope, entity, attribute): {"memory_id": mid, "value": beliefs.json_value(value)}
            for scope, entity, attribute, mid, value in rows}


def new_batch() -> str:
    return "b-" + secrets.token_hex(6)


@contextmanager
def unchanged(store: Store, plan, what: str):
    """Under the store's lock: (writer, the plan made again against the log as it is now).
    Refuses when the log changed in a way that alters what the operator reviewed."""
    with LogWriter(store.paths) as writer:
        store.refresh()
        fresh = plan.action.plan(store, plan.request)
        if fresh.fingerprint() != plan.fingerprint():
            raise Stale(f"store changed; review again: the log changed since this {what} was "
                          "planned (nothing written)")
        yield writer, fresh


def apply(action: "Action", store: Store, plan: Plan) -> Plan:
    """Append the plan's events under the lock, if the log has not changed the plan."""
    with unchanged(store, plan, "action") as (writer, fresh):
        batch = new_batch()
        for draft in fresh.drafts:
            draft["batch"] = batch
        events = writer.append(fresh.drafts)
    store.refresh()
    return replace(fresh, batch=batch, seqs=[e["seq"] for e in events])
