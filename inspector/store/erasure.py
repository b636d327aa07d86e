"""Erasure, the right to be forgotten (DESIGN §6).

Erasing a subject (or ids) appends one `erase` event per entry whose body holds no erased
state, replaces the body of every earlier event of those entries with {"erased": <id>} (the
digests stay, so the chain still verifies), rewrites the log atomically, deletes torn files
and caches, and writes a certificate that holds no erased value. The salted subject digest in
the erase events is the suppression list the write gate checks later writes against.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from dataclasses import dataclass, field

from . import gate
from .actions import Request, check_reason, unchanged
from .append import LogWriter, event_draft
from .audit import is_redacted
from .chain import canonical, line_bytes, seal_after, sha256_hex
from .files import fsync_dir, make_dir, replace_file, write_file
from .errors import BadInput, Refused
from .load import Store
from .model import now_text
from .queries import sql

LEGAL_HOLD = "legal_hold"


EraseRequest = Request      # erase reads reason, operator, subject and ids


@dataclass
class ErasurePlan:
    action: object
    request: Request
    erased: list[str]
    retained: list[str]
    redacted_seqs: list[int]
    counts: dict[str, int]
    head_before: str | None
    salt: str | None = None
    certificate: dict | None = field(default=None)

    def fingerprint(self) -> bytes:
        return canonical([self.erased, self.retained, self.redacted_seqs])

    def subject_digest(self) -> str | None:
        if self.request.subject is None:
            return None
        return gate.subject_digest(self.salt, self.request.subject)

    def document(self, certificate_id: str | None, head_after: str | None) -> dict:
        """The certificate (DESIGN §6, §8): ids, digests, counts; never an erased value."""
        return {"id": certificate_id, "at": now_text(), "operator": self.request.operator,
                "reason": self.request.reason, "subject_digest": self.subject_digest(),
                "salt": self.salt, "counts": self.counts, "erased_ids": self.erased,
                "retained_ids": self.retained, "redacted_seqs": self.redacted_seqs,
                "head_before": self.head_before, "head_after": head_after}

    def as_json(self, dry_run: bool) -> dict:
        return {"dry_run": dry_run,
                "certificate": self.certificate if self.certificate else self.document(None, None)}

    @property
    def affected(self) -> list[str]:
        return self.erased

    def done(self) -> str:
        return f"erased {len(self.erased)} entries; certificate {self.certificate['id']}"


def _check(request: Request) -> None:
    check_reason(request)
    if (request.subject is None) == (not request.ids):
        raise BadInput("erase takes either --subject S or one or more ids, not both and not neither")
    if request.subject is not None and not request.subject.strip():
        raise BadInput("--subject must not be empty")


def _considered(store: Store, request: Request) -> list[str]:
    if request.subject is not None:
        return [i for (i,) in store.con.execute(sql("erase_match"), {"subject": request.subject}).fetchall()]
    rows = dict((r[0], r[1]) for r in store.con.execute(sql("erase_entries"), {"ids": list(request.ids)}).fetchall())
    for memory_id in request.ids:
        if memory_id not in rows:
            raise BadInput(f"{memory_id}: not found in {store.root}; nothing written")
        if rows[memory_id] == "erased":
            raise Refused(f"{memory_id} is erased already; nothing written")
    return list(dict.fromkeys(request.ids))


def plan_erasure(action, store: Store, request: Request) -> ErasurePlan:
    """Which entries erasing the request takes and which legal hold keeps; nothing written."""
    _check(request)
    matched = _considered(store, request)
    down = [i for (i,) in store.con.execute(sql("erase_descendants"), {"ids": matched}).fetchall()]
    rows = {r[0]: r for r in store.con.execute(sql("erase_entries"), {"ids": matched + down}).fetchall()}
    live = [i for i in dict.fromkeys(matched + down) if i in rows and rows[i][1] != "erased"]
    retained = sorted(i for i in live if rows[i][3] == LEGAL_HOLD)
    erased = sorted(i for i in live if rows[i][3] != LEGAL_HOLD)
    if not erased:
        raise Refused("nothing to erase: no live entry matches (retained under legal hold: "
                      f"{len(retained)}); nothing written")
    _check_reason(store, request, erased)
    seqs = [s for (s,) in store.con.execute(sql("erase_seqs"), {"ids": erased}).fetchall()]
    counts = {"entries": len(erased), "events_redacted": len(seqs), "retained": len(retained)}
    for i in erased:
        counts[rows[i][2]] = counts.get(rows[i][2], 0) + 1
    salt = secrets.token_hex(16) if request.subject is not None else None
    return ErasurePlan(action, request, erased, retained, seqs, counts, store.head, salt)


def _check_reason(store: Store, request: Request, erased: list[str]) -> None:
    """The reason stays in the log and the certificate: it must not carry what is erased."""
    reason = request.reason.casefold()
    if request.subject and request.subject.casefold() in reason:
        raise BadInput("the reason names the subject, and the reason is kept: write a reason "
                       "without it (e.g. the request's ticket id)")
    values = [v for (v,) in store.con.execute(sql("erase_values"), {"ids": erased}).fetchall()]
    if any(v and len(v) >= 4 and v.casefold() in reason for v in values):
        raise BadInput("the reason quotes a value being erased, and the reason is kept: "
                       "write a reason without it")


def apply_erasure(action, store: Store, plan: ErasurePlan) -> ErasurePlan:
    """Erase under the store's lock, if the log has not changed the plan."""
    with unchanged(store, plan, "erasure") as (writer, fresh):
        fresh.salt = plan.salt
        certificate_id = "cert-" + secrets.token_hex(8)
        events, head_after, document = _erase_events(fresh, certificate_id, writer)
        pending = store.paths.certificates / f"{certificate_id}.json.pending"
        make_dir(store.paths.certificates)
        write_file(pending, canonical(document))
        replace_file(store.paths.log, _rewritten(store, fresh, certificate_id, events), "erase")
        os.rename(pending, pending.with_name(f"{certificate_id}.json"))
        fsync_dir(store.paths.certificates)
        _drop_residue(store)
    store.refresh()
    fresh.certificate = document
    return fresh


def _erase_events(plan: ErasurePlan, certificate_id: str, writer: LogWriter):
    document = plan.document(certificate_id, None)
    unsigned = {k: v for k, v in document.items() if k != "head_after"}
    digest = sha256_hex(canonical(unsigned))
    drafts = [event_draft("erase", memory_id, f"operator:{plan.request.operator}", before=None,
                          after={"id": memory_id, "status": "erased", "certificate": certificate_id,
                                 "certificate_digest": digest,
                                 "subject_digest": plan.subject_digest(),
                                 "subject_salt": plan.salt},
                          reason=plan.request.reason, batch=certificate_id)
              for memory_id in plan.erased]
    events = seal_after(drafts, writer.seq, writer.prev, now_text())
    document["head_after"] = f"{events[-1]['seq']}:{events[-1]['hash']}"
    return events, document["head_after"], document


def _rewritten(store: Store, plan: ErasurePlan, certificate_id: str, events: list[dict]):
    """The log's lines with the erased entries' bodies replaced, then the erase events."""
    redact = set(plan.redacted_seqs)
    with open(store.paths.log, "rb") as f:
        for seq, raw in enumerate(f, start=1):
            if not raw.endswith(b"\n"):
                break                       # a torn tail: moved aside by the writer already
            if seq in redact:
                event = json.loads(raw)
                if not is_redacted(event["body"]):
                    event["body"] = {"erased": certificate_id}
                yield line_bytes(event)
            else:
                yield raw
    yield b"".join(line_bytes(e) for e in events)


def _drop_residue(store: Store) -> None:
    """Torn files, caches and stale temp files may hold erased bytes: none survives."""
    shutil.rmtree(store.paths.torn, ignore_errors=True)
    shutil.rmtree(store.paths.cache, ignore_errors=True)
    for stale in store.root.glob(".events.jsonl.tmp-*"):
        stale.unlink(missing_ok=True)
    fsync_dir(store.root)
