"""Erasure, the right to be forgotten (DESIGN §6).

Erasing a subject (or ids) appends one `erase` event per entry whose body holds no erased
state, replaces the body of every earlier event of those entries with {"erased": <id>} (the
digests stay, so the chain still verifies), rewrites the log atomically, deletes torn files
and caches, and writes a certificate that holds no erased value. The salted subject digest in
the erase events is the suppression list the write gate checks later writes against.

The reason is kept, so it is refused when it quotes the subject or any text of what is erased
(compared after NFKC, case folding and removal of invisible characters). The writes come in an
order recovery.py can finish or undo after a crash at any point; a write that fails (a full
disk) is settled at once and reported in one line, leaving the log as it was.
"""

from __future__ import annotations

import os
import re
import shlex
import secrets
from dataclasses import dataclass, field

from . import jsonsafe
from . import detect, gate, reports
from .gate import fold
from .actions import (Request, check_reason, other_ids, said_otherwise,
                      spelled_otherwise_hint, unchanged)
from .append import LogWriter, event_draft
from .audit import is_redacted
from .commits import Written, record, uninterrupted
from .chain import canonical, line_bytes, seal_after, sha256_hex
from .files import _hook, failure, fsync_dir, replace_file, write_new
from .errors import BadInput, Refused, WriteFailed
from .load import Store
from .model import id_named, now_text
from .queries import sql
from .recovery import PENDING, drop_residue, log_names, settle_certificates

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
    reports: list[str] = field(default_factory=list)   # reports/ files that mention an erased id
    # the same as the certificate names them: a name that quotes what is erased is not kept
    reports_named: list[str] = field(default_factory=list)
    # Erased ids that hold personal data (writes.id_problem): an erasure keeps ids.
    personal_ids: list[str] = field(default_factory=list)
    # Entries that name the subject spelled otherwise: this erasure does not take them
    # (other_spellings).
    spelled_otherwise: list[str] = field(default_factory=list)
    # Live entries, not erased, whose id reads as one of the ids asked for but is spelled
    # otherwise (other_ids): `M-café` in NFD beside `M-café` in NFC.
    ids_spelled_otherwise: list[str] = field(default_factory=list)
    # Erased entries whose retention reads as a legal hold but is not `legal_hold` ("Legal
    # Hold", "LEGAL-HOLD"): id -> that retention. Only `legal_hold` exempts (DESIGN §2.1).
    hold_spelled_otherwise: dict[str, str] = field(default_factory=dict)
    # Events whose actor is the subject (its principal): the envelope keeps them (DESIGN §6).
    actor_events: int = 0

    @property
    def warnings(self) -> list[str]:
        """What the operator must know that the erasure cannot do (printed, not in the
        certificate)."""
        out = []
        if self.personal_ids:
            shown = ", ".join(self.personal_ids[:3]) + (", …" if len(self.personal_ids) > 3 else "")
            out.append(f"{len(self.personal_ids)} of the erased ids hold personal data ({shown}): "
                       "an erasure keeps every id in the log and lists it in the certificate, so "
                       "that data stays; treat the log and the certificate as personal data")
        if self.spelled_otherwise:
            said, shown = _otherwise(self.spelled_otherwise)
            out.append(f"{said}, and this erasure does not take them: {shown}; if they are about "
                       "the same person, erase them too by id (`inspector erase STORE ID… "
                       "--reason …`)")
        if self.ids_spelled_otherwise:
            out.append(said_otherwise(self.ids_spelled_otherwise, "this erasure"))
        if self.hold_spelled_otherwise:
            held = self.hold_spelled_otherwise
            shown = ", ".join(f"{i} ({held[i][:40]!r})" for i in list(held)[:3]) + \
                (", …" if len(held) > 3 else "")
            out.append(f"{len(held)} of the erased entries {'gives' if len(held) == 1 else 'give'} "
                       f"a retention that reads as a legal hold but is not `legal_hold`: {shown}; "
                       "only `legal_hold`, written exactly so, keeps an entry from erasure")
        if self.actor_events:
            n = self.actor_events
            out.append(f"{n} {'event names' if n == 1 else 'events name'} the subject as "
                       f"{'its' if n == 1 else 'their'} actor: the actor is part of the envelope, "
                       "which the chain keeps, so the subject's name stays there (`inspector "
                       "audit --log` lists them); write with an opaque actor id")
        return out

    def fingerprint(self) -> bytes:
        return canonical([self.erased, self.retained, self.redacted_seqs])

    def subject_digest(self) -> str | None:
        if self.request.subject is None:
            return None
        return gate.subject_digest(self.salt, self.request.subject)

    def document(self, certificate_id: str | None, head_after: str | None) -> dict:
        """The certificate (DESIGN §6, §8): ids, digests, counts; never an erased value."""
        reason = None if self.request.reason_pending else self.request.reason   # a dry run's placeholder
        return {"id": certificate_id, "at": now_text(), "operator": self.request.operator,
                "reason": reason, "subject_digest": self.subject_digest(),
                "salt": self.salt, "counts": self.counts, "erased_ids": self.erased,
                "retained_ids": self.retained, "redacted_seqs": self.redacted_seqs,
                "head_before": self.head_before, "head_after": head_after,
                "reports_deleted": self.reports_named}

    def as_json(self, dry_run: bool) -> dict:
        return {"dry_run": dry_run,
                "certificate": self.certificate if self.certificate else self.document(None, None)}

    @property
    def affected(self) -> list[str]:
        return self.erased

    def done(self) -> str:
        count = len(self.erased)
        return (f"erased {count} {'entry' if count == 1 else 'entries'}; "
                f"certificate {self.certificate['id']}")


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
            raise BadInput(f"{id_named(memory_id)}: not found in {store.root}"
                           f"{spelled_otherwise_hint(store, memory_id)}; nothing written")
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
        others = other_spellings(store, request.subject, live) if request.subject else []
        hint = "; {}: {}: erase them by id if they are about this person".format(
            *_otherwise(others)) if others else ""
        raise Refused("nothing to erase: no live entry matches (retained under legal hold: "
                      f"{len(retained)}){hint}; nothing written")
    seqs = [s for (s,) in store.con.execute(sql("erase_seqs"), {"ids": erased}).fetchall()]
    texts = list(_texts(store, set(seqs)))      # read from the log once, for both checks
    if not request.reason_pending:              # a placeholder says nothing (helper-66: a dry
        _check_reason(request, texts)           # run of subject "dry" was refused)
    _check_kept_reasons(store, request, texts, erased)
    counts = {"entries": len(erased), "events_redacted": len(seqs), "retained": len(retained)}
    for i in erased:
        kind = rows[i][2] if isinstance(rows[i][2], str) else "unknown"   # a malformed entry
        counts[kind] = counts.get(kind, 0) + 1
    salt = secrets.token_hex(16) if request.subject is not None else None
    found = [str(p.relative_to(store.paths.root)) for p in reports.mentioning(
        store.paths, erased, [request.subject] if request.subject else ())]
    return ErasurePlan(action, request, erased, retained, seqs, counts, store.head, salt,
                       reports=found, reports_named=_report_names(found, texts, request),
                       personal_ids=[i for i in erased if detect.pii_named_in(i)],
                       spelled_otherwise=other_spellings(store, request.subject, live)
                       if request.subject else [],
                       ids_spelled_otherwise=other_ids(store, request.ids, live)
                       if request.subject is None else [],
                       hold_spelled_otherwise={i: rows[i][3] for i in erased
                                               if _reads_as_hold(rows[i][3])},
                       actor_events=store.con.execute(sql("erase_actor_events"), {
                           "subject": request.subject}).fetchone()[0] if request.subject else 0)


def _reads_as_hold(retention) -> bool:
    """A retention other than `legal_hold` whose letters are those of "legal hold", in any case
    and with any spaces or signs between ("Legal Hold", "LEGAL-HOLD", "legalhold")."""
    return isinstance(retention, str) and retention != LEGAL_HOLD and \
        "".join(c for c in retention.casefold() if c.isalpha()) == "legalhold"


def _otherwise(ids: list[str]) -> tuple[str, str]:
    """What a warning or a refusal says of other_spellings' `ids`: how many and why, and the
    first eight of them."""
    said = (f"{len(ids)} {'entry names' if len(ids) == 1 else 'entries name'} the subject spelled "
            "otherwise (case, width, Unicode form, spaces or invisible characters)")
    return said, " ".join(ids[:8]) + (" …" if len(ids) > 8 else "")


def other_spellings(store: Store, subject: str, taken: list[str]) -> list[str]:
    """The live entries, beyond `taken`, with a name an erasure of `subject` compares (subject,
    entity and its segments, scope segments, source principal) that is the subject spelled
    otherwise: equal once folded (`fold`: NFKC, case folded, invisible characters removed,
    spaces made one). Erasure matches the subject exactly (the certificate's digest is of that
    text): these are said, never taken unasked."""
    target, skip = fold(subject), set(taken)
    found = dict.fromkeys(memory_id for name, memory_id in
                          store.con.execute(sql("erase_spellings"), {"subject": subject}).fetchall()
                          if memory_id not in skip and fold(name) == target)
    if not found:
        return []
    rows = store.con.execute(sql("erase_entries"), {"ids": list(found)}).fetchall()
    return sorted(memory_id for memory_id, status, _, _ in rows if status != "erased")


SHORTEST = 4          # shorter texts are not looked for in the reason: they would match any
# Fields of a state that hold vocabulary, times, numbers or ids (envelope data), not content.
NOT_TEXT = frozenset({"id", "kind", "layer", "status", "retention", "sensitivity", "held_reason",
                      "observed_at", "valid_from", "valid_to", "expires_at", "justification",
                      "authority", "confidence"})
FIELD_NAMES = {"value": "a value", "context": "a context", "tags": "a tag", "entity": "an entity",
               "attribute": "an attribute", "subject": "a subject", "scope": "a scope",
               "source": "a source"}


_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The words of a folded text: what stays of it whatever separates them."""
    return _WORD.findall(fold(text))


def _within(needle: list[str], hay: list[str]) -> bool:
    """Whether `needle` occurs in `hay` as consecutive words."""
    n = len(needle)
    return n > 0 and any(hay[i:i + n] == needle for i in range(len(hay) - n + 1))


# Texts that name a kind of data, not the data: a reason may say "remove their date of birth"
# (only their exact text is refused there).
NAMES = frozenset({"an attribute", "a scope", "a source"})


def _spelled(text: str, reason: str, said: list[str], by_words: bool = True,
             shortest: int = 1) -> bool:
    """Whether the reason holds `text` (folded), however its separators are spelled: as itself,
    as its words in order ("user 42", "user: 42", "Lisbon-fair"), or with its separators
    dropped as one word of the reason ("user42", "+15550100" for "+1-555-0100"). Words are
    never glued across the reason's own separators ("ticket SU-12" does not hold "u:1"). A text
    shorter than `shortest` (folded) is never looked for."""
    folded = fold(text)
    if len(folded) < shortest:
        return False
    if folded in reason:
        return True
    its_words = _WORD.findall(folded)
    if not by_words or not its_words:
        return False
    return (len(its_words) > 1 and _within(its_words, said)) or "".join(its_words) in said


def _check_reason(request: Request, texts: list[tuple[str, str]]) -> None:
    """The reason stays in the log and the certificate: it must not carry what is erased —
    the subject, or any text of an erased entry's events (DESIGN §6) — however its separators
    are spelled (_spelled), nor part of an entry's own text (_quotes_part). A name of a kind
    of data (an attribute, a scope, a source) is refused only as its exact text. `texts`:
    _texts of the erased events."""
    reason, said = fold(request.reason), words(request.reason)
    if request.subject and _spelled(request.subject, reason, said):
        raise Refused("the reason names the subject, and the reason is kept: write a reason "
                      "without it (e.g. the request's ticket id); nothing written")
    for what, text in texts:
        if _spelled(text, reason, said, by_words=what not in NAMES, shortest=SHORTEST):
            raise Refused(f"the reason quotes {what} being erased, and the reason is kept: write "
                          "a reason without it (e.g. the request's ticket id); nothing written")
    runs = _runs(said)
    for what, text in texts:
        if what not in WHOLE_ONLY and (_quotes_part(words(text), said, runs)
                                       or _quotes_mailbox(text, reason)):
            raise Refused(f"the reason quotes part of {what} being erased (two or more of its "
                          "words in a row, a word of it with digits, or an address's name), and "
                          "the reason is kept: write a reason without it (e.g. the request's "
                          "ticket id); nothing written")


# Texts only refused whole in a reason: names of kinds of data, and what earlier events said
# (an earlier reason often names the same ticket as the erasure's: "DSR2025 hold").
WHOLE_ONLY = NAMES | {"an earlier reason", "a field of an event"}
PART_LETTERS = 10       # words in a row of a text, quoted in a reason: at least this many letters
                        # ("user asked", 9, is too common to refuse; "Lisbon fair" is 10)


def _runs(said: list[str]) -> dict[tuple[str, str], list[int]]:
    """Where each two words in a row of the reason start."""
    runs: dict[tuple[str, str], list[int]] = {}
    for j in range(len(said) - 1):
        runs.setdefault((said[j], said[j + 1]), []).append(j)
    return runs


def _marked(word: str) -> bool:
    """A word that says something on its own: letters and digits together ("nw1", "1a7b3d"),
    or four digits or more but a year (a code, a phone number or its last four: "ends 4455"
    was let through, helper-64; "2025" of a date and a ticket's "DSR-2025-117" are not)."""
    digits = sum(c.isdigit() for c in word)
    return (0 < digits < len(word) and len(word) >= 3) or \
        (digits == len(word) >= 4 and not (len(word) == 4 and 1900 <= int(word) <= 2099))


# What ends an e-mail address's name or domain, read outward from its "@".
_NOT_IN_ADDRESS = frozenset(" \t\n\r\f\v@<>(),;:\"[]")


def _mailbox_names(folded: str) -> set[str]:
    """The names (parts before the @, three characters or more, at most 64) of the e-mail
    addresses in a folded text: read outward from each "@", each side bounded, so that the
    time is linear in the text (a regex with two unbounded runs took quadratic time on a
    hostile value of many dots and "@"s: the fuzz test caught it)."""
    names, at = set(), folded.find("@")
    while at != -1:
        start = at
        while start > 0 and at - start < 64 and folded[start - 1] not in _NOT_IN_ADDRESS:
            start -= 1
        end = at + 1
        while end < len(folded) and end - at <= 255 and folded[end] not in _NOT_IN_ADDRESS:
            end += 1
        name, domain = folded[start:at], folded[at + 1:end].strip(".")
        if len(name) >= 3 and "." in domain:
            names.add(name)
        at = folded.find("@", at + 1)
    return names


def _quotes_mailbox(text: str, reason: str) -> bool:
    """Whether the (folded) reason holds the name of an e-mail address of `text` as a token
    of its own: "DSR sam.k" of "sam.k@example.org" (helper-64; its words "sam" and "k" were
    too short to be caught)."""
    if "@" not in text:
        return False
    return any(re.search(rf"(?<![\w.+-]){re.escape(name)}(?![\w+-]|\.\w)", reason)
               for name in _mailbox_names(fold(text)) if name in reason)


def _quotes_part(its: list[str], said: list[str], runs: dict[tuple[str, str], list[int]]) -> bool:
    """Whether the reason's words hold part of a text's words `its`: two or more of them in a
    row with PART_LETTERS letters or more ("Baker Street" of "12 Baker Street, London NW1"),
    or one of them that is _marked ("NW1"). One common word of a text is not a quote of it
    ("DSR-1 zephyr" of "zephyr-hollow"): a single word like "Zürich" is not caught."""
    for i in range(len(its) - 1):
        for j in runs.get((its[i], its[i + 1]), ()):
            k = 2
            while i + k < len(its) and j + k < len(said) and its[i + k] == said[j + k]:
                k += 1
            if sum(map(len, its[i:i + k])) >= PART_LETTERS:
                return True
    long_words = {w for w in said if len(w) >= PART_LETTERS}
    if long_words and not long_words.isdisjoint(_glued_runs(its)):
        return True
    return any(_marked(w) for w in set(its) & set(said))


GLUED_MAX = 6           # words of a text run together into one word of a reason, at most


def _glued_runs(its: list[str]) -> set[str]:
    """Two to GLUED_MAX words in a row of a text run together, PART_LETTERS letters or more: a
    reason that writes them as one word ("BakerStreet", or "Baker\u200bStreet", which fold
    makes the same) quotes them as surely as with the space (helper-66)."""
    found = set()
    for i in range(len(its) - 1):
        joined = its[i]
        for k in range(i + 1, min(len(its), i + GLUED_MAX)):
            joined += its[k]
            if len(joined) >= PART_LETTERS:
                found.add(joined)
    return found


def _check_kept_reasons(store: Store, request: Request, texts: list[tuple[str, str]],
                        erased: list[str]) -> None:
    """The reasons of events the erasure keeps (actions on entries it does not erase) must not
    quote what it erases: the erasure would leave it in the log and say it was whole
    ("quarantine H6 X1 --reason 'both bounced: sam.k@example.org'", then erasing H6's subject
    kept the address in X1's event). Refused, naming those events and what to do: erase their
    entries too (their events are then rewritten), after a look at what they are."""
    kept = store.con.execute(sql("erase_kept_reasons"), {"ids": erased}).fetchall()
    if not kept:
        return
    # What the erased entries held (their states' texts); not their events' reasons, which
    # a kept event of the same batch shares word for word.
    texts = [(what, text) for what, text in texts
             if what not in NAMES and what not in ("an earlier reason", "a field of an event")]
    if request.subject:
        texts.append(("the subject", request.subject))
    # Every match _spelled finds has the text's words, glued, within the reason's words,
    # glued: one substring test over all the kept reasons at once finds the few texts
    # worth asking of each reason.
    glued = "\0".join("".join(words(reason)) for _, _, reason in kept)
    candidates = {}
    for what, text in texts:
        key = "".join(words(text))
        if len(key) >= SHORTEST and key in glued:
            candidates.setdefault(text, what)
    quotes = _Quotes(list(candidates), [text for what, text in texts if what != "the subject"])
    found = [(seq, memory_id) for seq, memory_id, reason in kept if quotes.by(reason)]
    if found:
        named = ", ".join(f"seq {seq} ({memory_id})" for seq, memory_id in found[:8])
        more = f" and {len(found) - 8} more" if len(found) > 8 else ""
        ids = " ".join(dict.fromkeys(memory_id for _, memory_id in found))
        raise Refused(f"the reasons of {named}{more} quote what this erasure takes, and those events "
                      f"are kept: erase those entries first if they must go (`inspector erase "
                      f"{shlex.quote(str(store.paths.root))} {ids} --reason …`), then this; "
                      "nothing written")


_DOMAIN = re.compile(r"(?<=[\w.+-])@[\w.-]+")


class _Quotes:
    """What an erasure takes, to ask of many texts it keeps (other entries' reasons, the names
    of the reports it deletes) whether one quotes it: a `whole` text however its separators are
    spelled (_spelled), or part of one of `parts` as the erasure's own reason may not
    (_quotes_part, _quotes_mailbox: helper-68, "both bounced: ZQXJ-phone-5550100" of "call
    ZQXJ-phone-5550100 after 6pm" was kept in another entry's event). A text is asked about the
    parts that share two words in a row, a marked word or an address's name with it, found by
    lookups: linear in its words. An address's domain is no part of a text here
    ("example.org" is in the addresses of many people)."""

    def __init__(self, whole: list[str], parts: list[str]):
        self.whole = whole
        self.texts = [(text, words(_DOMAIN.sub(" ", text))) for text in parts]
        self.pairs: dict[tuple[str, str], set[int]] = {}
        self.marked: dict[str, set[int]] = {}
        self.boxes: dict[str, set[int]] = {}
        self.glued: dict[str, set[int]] = {}
        for n, (text, its) in enumerate(self.texts):
            for pair in zip(its, its[1:]):
                self.pairs.setdefault(pair, set()).add(n)
            for joined in _glued_runs(its):
                self.glued.setdefault(joined, set()).add(n)
            for word in its:
                if _marked(word):
                    self.marked.setdefault(word, set()).add(n)
            if "@" in text:
                for name in _mailbox_names(fold(text)):
                    self.boxes.setdefault(name, set()).add(n)

    def by(self, text: str) -> bool:
        """Whether `text` quotes what is erased, whole or in part."""
        folded, said = fold(text), words(text)
        return any(_spelled(whole, folded, said, shortest=SHORTEST) for whole in self.whole) \
            or self._part_in(folded, said)

    def _part_in(self, folded: str, said: list[str]) -> bool:
        asked: set[int] = set()
        for pair in zip(said, said[1:]):
            asked |= self.pairs.get(pair, set())
        for word in said:
            asked |= self.marked.get(word, set())
            asked |= self.glued.get(word, set())
        for name, holders in self.boxes.items():
            if name in folded:
                asked |= holders
        if not asked:
            return False
        runs = _runs(said)
        return any(_quotes_part(self.texts[n][1], said, runs)
                   or _quotes_mailbox(self.texts[n][0], folded) for n in sorted(asked))


def _texts(store: Store, seqs: set[int]):
    """(what, text) for every text the events at `seqs` hold: strings at any depth of their
    states (object keys too) and their reasons. Read from the log itself, so that fields the
    tables do not keep (the `before` state, unknown extra fields) are covered."""
    if not seqs:
        return
    last = max(seqs)
    with open(store.paths.log, "rb") as f:
        for seq, raw in enumerate(f, start=1):
            if seq > last:
                break
            if seq not in seqs or not raw.endswith(b"\n"):
                continue
            body = _event(raw).get("body")
            if not isinstance(body, dict) or is_redacted(body):
                continue
            for key, item in body.items():
                if key in ("before", "after") and isinstance(item, dict):
                    for name, field_value in item.items():
                        if name not in NOT_TEXT:
                            what = FIELD_NAMES.get(name, "a field of an entry")
                            yield from ((what, t) for t in _strings(field_value))
                elif key == "reason":
                    yield from (("an earlier reason", t) for t in _strings(item))
                elif key != "salt":
                    yield from (("a field of an event", t) for t in _strings(item))


def _strings(value):
    """Every string in a JSON value, object keys included; iterative (a value may be deep)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _event(raw: bytes) -> dict:
    """One log line the loader accepted. Strict reading first; a line whose entry the loader
    kept as malformed (a non-finite number) is read leniently, never with the stack."""
    try:
        event = jsonsafe.loads(raw)
    except ValueError:
        event = jsonsafe.loads_stored(raw.decode("utf-8", "surrogatepass"))
    if not isinstance(event, dict):
        raise BadInput("a line to erase is not a JSON object; run `inspector audit --verify` "
                       "on the store; nothing written")
    return event


def apply_erasure(action, store: Store, plan: ErasurePlan) -> ErasurePlan:
    """Erase under the store's lock, if the log has not changed the plan."""
    with unchanged(store, plan, "erasure") as (writer, fresh):
        fresh.salt = plan.salt
        certificate_id = "cert-" + secrets.token_hex(8)
        events, head_after, document = _erase_events(fresh, certificate_id, writer)
        writer.set_torn_aside()             # the rewritten log ends at the last complete line
        with uninterrupted():               # a ctrl-c waits until the erasure stands, recorded
            _write(store, fresh, certificate_id, events, document)
    store.refresh()
    fresh.certificate = document
    return fresh


def _write(store: Store, plan: ErasurePlan, certificate_id: str, events: list[dict],
           document: dict) -> None:
    """Pending certificate, rewritten log, residue removed, certificate made final — in this
    order, so that recovery (recovery.py) can finish or undo a crash at any point. An error
    (a full disk) is settled at once the way recovery would, then reported in one line."""
    paths = store.paths
    _can_drop_residue(paths)
    _no_other_names(paths, plan.reports)
    pending = paths.certificates / f"{certificate_id}{PENDING}"
    deleted = []
    try:
        write_new(paths.certificates, pending.name, canonical(document))
        _hook("erase:after_pending")
        for name in plan.reports:            # exports the tool wrote: derived, deleted first
            (paths.root / name).unlink(missing_ok=True)
            deleted.append(name)
        replace_file(paths.log, _rewritten(store, plan, certificate_id, events), "erase")
        drop_residue(paths)
        _hook("erase:before_certificate")
        os.rename(pending, pending.with_name(f"{certificate_id}.json"))
        fsync_dir(paths.certificates)
        _record(store, certificate_id, events, "done")
    except OSError as exc:
        state = _settle(store, certificate_id, events)
        if state == "done":
            return                      # only a last fsync failed: recovery finished it at once
        what, fix = failure(exc)
        if state == "written":
            raise WriteFailed(f"the erasure is in the log, but finishing it failed ({what}); the "
                              "next command that writes finishes it") from None
        if deleted:     # never kept back: they name what is being erased
            raise WriteFailed(f"cannot erase: writing to {paths.root} failed ({what}); the log "
                              f"was not changed, but the {len(deleted)} report(s) that mention the "
                              f"entries were deleted first ({', '.join(deleted[:3])}"
                              f"{', …' if len(deleted) > 3 else ''}; `inspector report` makes "
                              f"them again): {fix} and run erase again") from None
        raise WriteFailed(f"cannot erase: writing to {paths.root} failed ({what}); nothing was "
                          f"changed: {fix} and run erase again") from None
    except BaseException:
        _settle(store, certificate_id, events)
        raise


QUOTING_NAME = "reports/… (its name quoted what was erased)"


def _report_names(names: list[str], texts: list[tuple[str, str]], request: Request) -> list[str]:
    """The reports deleted, as the certificate (kept for ever) names them: a file name that
    quotes the subject or an erased text, whole or in part, as a reason may not, is replaced by
    QUOTING_NAME (helper-68: `reports/dsr-user-zq77-ZQXJ-marker-7731.html` stayed in the
    certificate of the erasure that deleted it)."""
    if not names:
        return []
    whole = [text for what, text in texts if what not in NAMES]
    if request.subject:
        whole.append(request.subject)
    quotes = _Quotes(whole, [text for what, text in texts if what not in WHOLE_ONLY])
    return [QUOTING_NAME if quotes.by(name) else name for name in names]


def _can_drop_residue(paths) -> None:
    """Before anything is written: every directory of the view and of torn/ takes a new file
    and lets it go, so that the residue the erasure must delete can be deleted. Refused
    otherwise, naming the directory: another account's `.inspector` (a command run with sudo
    -u) made the erasure rewrite the log, then stop with the view holding the erased values,
    and every command after it say nothing (helper-68)."""
    for top in (paths.cache, paths.torn):
        if not top.is_dir() or top.is_symlink():
            continue
        folders = [str(top)]
        while folders:
            folder = folders.pop()
            probe = os.path.join(folder, f".erase-probe-{secrets.token_hex(4)}")
            try:
                os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                                 0o600))
                os.unlink(probe)
                with os.scandir(folder) as entries:
                    folders.extend(e.path for e in entries if e.is_dir(follow_symlinks=False))
            except OSError as exc:
                raise WriteFailed(
                    f"cannot erase: {folder} cannot be changed ({exc.strerror}), and it holds "
                    "copies of what the erasure takes, which it must delete: give the account "
                    "running erase the right to delete it (its owner or mode), or delete it "
                    "yourself (it is derived), then run erase again; nothing was changed") from None


def _no_other_names(paths, reports: list[str]) -> None:
    """Before anything is written: the log, the reports to delete and the torn files have no
    other name (a hard link: `ln events.jsonl keep`, a backup made with `cp -l`). The erasure
    replaces the log and deletes the others by name, so the old file, every erased value in it,
    stayed whole under its other name while the certificate said the erasure was done."""
    torn = [os.path.join(folder, name) for folder, _, names in os.walk(paths.torn)
            for name in names] if paths.torn.is_dir() and not paths.torn.is_symlink() else []
    for path in [str(paths.log), *(str(paths.root / name) for name in reports), *torn]:
        try:
            links = os.lstat(path).st_nlink
        except FileNotFoundError:
            continue
        if links > 1:
            raise WriteFailed(
                f"cannot erase: {path} has {links - 1} other "
                f"{'name' if links == 2 else 'names'} (a hard link), and the erasure leaves what "
                "they hold whole: remove them (`find / -xdev -samefile "
                f"{shlex.quote(path)}` lists them), then run erase again; nothing was changed")


def _record(store: Store, certificate_id: str, events: list[dict], state: str) -> None:
    if state != "undone":
        record(Written(store.paths.root, "erasure", certificate_id, len(events), state == "done"))


def _settle(store: Store, certificate_id: str, events: list[dict]) -> str:
    """After a failed write, finish or undo at once as recovery does: "done" (the erasure
    stands, certificate and all), "written" (the log is erased, the rest is left to the next
    writer's recovery) or "undone" (nothing changed)."""
    try:
        settle_certificates(store.paths)
    except OSError:
        pass                                    # the next writer's recovery tries again
    if (store.paths.certificates / f"{certificate_id}.json").exists():
        state = "done"
    else:
        state = "written" if log_names(store.paths, certificate_id) else "undone"
    _record(store, certificate_id, events, state)
    return state


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
                break                       # a torn tail: set aside by the writer already
            if seq in redact:
                event = _event(raw)
                body = event.get("body")
                if not (isinstance(body, dict) and is_redacted(body)):
                    event["body"] = {"erased": certificate_id}
                yield line_bytes(event)
            else:
                yield raw
    yield b"".join(line_bytes(e) for e in events)
