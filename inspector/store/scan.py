"""`scan` (DESIGN §7a): deterministic findings over the loaded store, each with a rule id,
a severity and a message a person can act on. Set-shaped rules are SQL; only the text
detectors (instructions, credentials, personal data) run in Python."""

from __future__ import annotations

import marshal
import zlib
from collections import defaultdict
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Iterable, Iterator, TypeVar

from . import beliefs, detect, gate, jsonsafe, lean, lineage, macros, policy
from .detect import batch
from .load import Store
from .model import SEVERITIES, STATUSES, now_utc, sensitivity_of
from .queries import sql

T = TypeVar("T")

# Pruning rounds before the rest of the edges go to Tarjan's walk (scan._cycles).
CYCLE_PRUNE_ROUNDS = 8
# Entries whose texts are judged at once (detect.batch: shared with a child process a core
# when large enough); progress and cancel are checked between them. A child starts cold for
# each, so fewer, larger chunks are quicker, but a chunk's entries are all held at once: on
# the 1M bench store (with _judged first) 125,000 peaked at 495-515 MB in 12.9 s, 50,000
# at 432-437 MB in 14.4 s, 25,000 at 436-448 MB in 14.7 s. With DuckDB 2.0, at 5M events,
# 50,000 took 497-557 MB in 25.8 s, over the 500 MB of a warm command; 20,000 (with
# belief ranges of 50,000) takes 448-474 MB in 28.8 s, 30,000 477-481 MB in 27.6 s.
TEXT_CHUNK = 20_000

RULES = {
    "poison.rule_from_untrusted": "high", "secret.value": "high", "scope.leak": "high",
    "entry.malformed": "high", "policy.protected_key": "high",
    "summary.unsupported": "medium", "echo.single_source": "medium", "lineage.cycle": "medium",
    "lineage.dangling": "medium", "belief.contested": "medium", "pii.no_subject": "medium",
    "pii.in_id": "medium", "validity.expired_active": "low",
}


@dataclass(frozen=True, slots=True)   # no dict per finding: a 5M-event store has 283k
class Finding:
    rule: str
    memory_id: str
    message: str

    @property
    def severity(self) -> str:
        return RULES[self.rule]

    def as_json(self) -> dict:
        return {"rule": self.rule, "severity": self.severity, "memory_id": self.memory_id,
                "message": self.message}


class Found:
    """The findings of a scan as it goes, each rule's kept packed (marshal, then zlib) until
    read: at 5M events, 283k findings held as objects took about 100 MB while the later steps
    ran (`scan --json` 546 MB). Iterated (as often as wanted): every finding once (a step
    lean.capped ran again adds its findings twice), highest severity first, then by rule, id
    and message; one rule's unpacked at a time."""

    def __init__(self) -> None:
        self._packed: dict[str, list[bytes]] = defaultdict(list)

    def add(self, findings: Iterable[Finding]) -> None:
        by_rule: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for f in findings:
            by_rule[f.rule].append((f.memory_id, f.message))
        for rule, rows in by_rule.items():
            self._packed[rule].append(zlib.compress(marshal.dumps(rows), 1))

    def __iter__(self) -> Iterator[Finding]:
        rank = {s: i for i, s in enumerate(reversed(SEVERITIES))}
        for rule in sorted(self._packed, key=lambda r: (rank[RULES[r]], r)):
            rows = {row for blob in self._packed[rule] for row in marshal.loads(zlib.decompress(blob))}
            for memory_id, message in sorted(rows):
                yield Finding(rule, memory_id, message)

    def at_or_above(self, severity: str) -> bool:
        """Whether a finding at `severity` or above was found."""
        floor = SEVERITIES.index(severity)
        return any(SEVERITIES.index(RULES[rule]) >= floor for rule in self._packed)


class Cancelled(Exception):
    """The scan was stopped by its caller."""


Progress = Callable[[float, str], None]


def _ids(ids) -> str:
    ids = list(ids)
    return ", ".join(ids[:-1]) + f" and {ids[-1]}" if len(ids) > 1 else ids[0]


def _scope_leaks(store: Store) -> list[Finding]:
    return [Finding("scope.leak", m, f"{m} (scope {scope!r}) cites {_ids(cited)}, which its scope "
                                     "cannot see: knowledge crossed a scope boundary")
            for m, cited, scope in store.con.execute(sql("scan_scope_leak")).fetchall()]


def _unsupported(rows: list[tuple]) -> list[Finding]:
    return [Finding("summary.unsupported", m, f"{m} is an active summary that what it cites "
                                              f"({_ids(cites) if cites else 'nothing'}) does not support; "
                                              "it is never believed")
            for m, cites in rows]


def _echoes(store: Store) -> list[Finding]:
    return [Finding("echo.single_source", m, f"{m} cites {_ids(cited)}, which trace to one source: {src}")
            for m, src, cited in store.con.execute(sql("scan_echo")).fetchall()]


def _dangling(store: Store) -> list[Finding]:
    return [Finding("lineage.dangling", m, f"{m} cites {_ids(missing)}, which no entry has")
            for m, missing in store.con.execute(sql("scan_dangling")).fetchall()]


def _cycles(store: Store) -> list[Finding]:
    """Justification cycles: a few rounds of pruning in SQL leave the edges that may lie on one
    (each round drops the ends of every chain, so a round per link would make a long chain
    cost its length times all the edges), then Tarjan's walk, linear in what is left."""
    store.con.execute(sql("cycle_core_init"))
    for _ in range(CYCLE_PRUNE_ROUNDS):
        if not store.con.execute(sql("cycle_core_prune")).fetchone()[0]:
            break
    found = lineage.cycles(store.con.execute(sql("cycle_core_edges")).fetchall())
    return [Finding("lineage.cycle", member, f"{member} rests on itself through {_ids(cycle)}")
            for cycle in found for member in cycle]


def _malformed(store: Store) -> list[Finding]:
    return [Finding("entry.malformed", m, _malformed_message(m, status, problem))
            for m, status, problem in store.con.execute(sql("scan_malformed")).fetchall()]


def _malformed_message(memory_id: str, status, problem: str) -> str:
    if status in STATUSES:
        return (f"{memory_id} ({status}) breaks the entry contract: {problem}; it is never a "
                "belief: quarantine, retract or erase it")
    # the other actions refuse it: none could put back a status it never had
    shown = "no status" if status is None else f"status {status!r}"
    return (f"{memory_id} ({shown}) breaks the entry contract: {problem}; it is never a belief, "
            "and only erase takes it (no other action could put its status back)")


def _protected(store: Store) -> list[Finding]:
    """policy.protected_key: active entries the key policy in force would hold."""
    key_policy = policy.load(store.paths)
    found = []
    rows = store.con.execute(sql("scan_policy_keys"))  # a chunk at a time: a million active
    while chunk := rows.fetchmany(TEXT_CHUNK):          # entries as tuples held 300 MB
        for m, entity, attribute, source, authority in chunk:
            state = {"entity": entity, "attribute": attribute, "source": source, "authority": authority}
            rule = key_policy.breach(state)
            if rule is not None:
                found.append(Finding("policy.protected_key", m, f"{m}: {key_policy.reason(state, rule)}"))
    return found


def _ids_with_personal_data(store: Store) -> list[Finding]:
    """pii.in_id: an id that holds personal data, which no erasure removes (the envelope stays
    in the log and the id goes into the certificate). New ones are refused (writes.id_problem);
    this finds those written before, or by another writer."""
    found = []
    rows = store.con.execute(sql("scan_id_candidates"))
    while chunk := rows.fetchmany(TEXT_CHUNK):
        for (m,) in chunk:
            kind = detect.pii_named_in(m)
            if kind is not None:
                found.append(Finding("pii.in_id", m, f"{m}: the id holds personal data ({kind}); an "
                                                     "erasure keeps ids in the log and its certificate, so "
                                                     "write the entry again under an opaque id and erase this one"))
    return found


def _expired(store: Store) -> list[Finding]:
    return [Finding("validity.expired_active", m, f"{m} expired at {_to_the_second(at)} and is "
                                                  "still active: `inspector expire STORE --due`")
            for m, at in store.con.execute(sql("scan_expired"), {"now": now_utc()}).fetchall()]


def _to_the_second(moment: datetime) -> str:
    """2025-03-01T04:06:55Z; the year always in four digits (strftime's %Y writes year 1 as 1)."""
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%SZ}"


def _judged(store: Store, keep_view: bool, cap: int | None, found: Found) -> None:
    """belief.contested (a range's at a time) and summary.unsupported, judging every key a
    range at a time (beliefs.in_ranges, which leaves the summaries' support in `support`);
    keep_view: inside a transaction rolled back, which leaves the store's belief tables as they
    were (but holds every range until the end)."""
    spec = beliefs.ViewSpec(None, beliefs.Moment.resolve())
    with store.scratch() if keep_view else nullcontext():
        for _ in beliefs.in_ranges(store.con, spec, keep=False, cap=None if keep_view else cap):
            found.add(Finding("belief.contested", m,
                              f"{m}, the belief for {entity} · {attribute} in "
                              f"{scope or 'the global scope'!r}, is contested by "
                              f"{_ids(others)} (same authority and scope, another value)")
                      for m, scope, entity, attribute, others
                      in store.con.execute(sql("scan_contested")).fetchall())
        query = macros.sql(store.con, "scan_unsupported")
        params = {"tk": spec.moment.tk, "now": beliefs.at_head(store.con, spec.moment.tk)}
        unsupported = _read(store, lambda: store.con.execute(query, params).fetchall(),
                            not keep_view and cap is not None)
    found.add(_unsupported(unsupported))


def _text(store: Store, progress: Progress | None, cancelled: Callable[[], bool] | None,
          capped: bool, found: Found) -> None:
    """The text detectors over every live value, a chunk at a time. capped (a command's own
    connection): DuckDB's memory is capped (lean.CAP) while the values are read, so that it
    lets go of the view's blocks once read; uncapped it keeps them all, up to 80% of the
    machine's memory (`scan --json` held 1.4 GB at 5M events of long values)."""
    _read(store, lambda: _read_texts(store, progress, cancelled, found), capped)


def _read_texts(store: Store, progress: Progress | None,
                cancelled: Callable[[], bool] | None, found: Found) -> None:
    query = sql("scan_text_entries")
    total = store.con.execute(f"SELECT count(*) FROM ({query})").fetchone()[0]
    rows = store.con.execute(query)     # fetched a chunk at a time: nothing else runs on con
    for start in range(0, total, TEXT_CHUNK):
        if cancelled and cancelled():
            raise Cancelled()
        if progress:
            progress(0.2 + 0.7 * start / max(1, total), "reading values")
        chunk = [(m, status, {"source": source, "scope": scope, "layer": layer,
                              "value": jsonsafe.loads_stored(value) if value else None},
                  subject, sensitivity)
                 for m, status, source, scope, layer, subject, sensitivity, value
                 in rows.fetchmany(TEXT_CHUNK)]
        judged = batch.judge(*_questions(chunk))
        found.add(f for m, status, entry, subject, sensitivity in chunk
                  for f in _text_findings(m, status, entry, subject, sensitivity, judged))


def _questions(chunk: list[tuple]) -> tuple[list[str], list[str]]:
    """The texts _text_findings asks secret of (live entries) and rule_shape of (active ones
    from untrusted sources)."""
    secret_texts: list[str] = []
    rule_texts: list[str] = []
    for _, status, entry, _, _ in chunk:
        texts = detect.texts_of(entry["value"])
        if status in ("active", "held"):
            secret_texts += texts
        if status == "active" and not gate.is_trusted(entry):
            rule_texts += texts
    return secret_texts, rule_texts


def _text_findings(m: str, status: str, entry: dict, subject, sensitivity,
                   judged: batch.Judged | None = None) -> list[Finding]:
    out = []
    if status == "active" and not gate.is_trusted(entry):
        hit = gate.rule_finding(entry, judged)
        if hit or entry["layer"] == "procedural":
            why = f"{hit.category}: {hit.excerpt!r}" if hit else "a procedural entry"
            out.append(Finding("poison.rule_from_untrusted", m, f"{m} is an instruction to the agent "
                                                                f"({why}) from untrusted {entry['source']}"))
    if status in ("active", "held"):
        hit = gate.secret_finding(entry, judged)
        if hit:
            out.append(Finding("secret.value", m, f"{m}'s value looks like a credential ({hit.category}: "
                                                  f"{hit.excerpt}); rotate it and erase the entry"))
    if subject is None and status != "erased":
        kinds = sorted({f.category for t in detect.texts_of(entry["value"]) for f in detect.pii(t)})
        if sensitivity_of(sensitivity) == "pii" or kinds:
            what = ", ".join(kinds) if kinds else "sensitivity pii"
            out.append(Finding("pii.no_subject", m, f"{m} holds personal data ({what}) but no subject: "
                                                    "erasure by subject would miss it"))
    return out


# The set-shaped rules scan runs after _judged and before the texts, and after the texts.
LINEAGE_RULES = (_echoes, _scope_leaks, _cycles, _dangling)
LATE_RULES = (_malformed, _protected, _ids_with_personal_data, _expired)


def scan(store: Store, progress: Progress | None = None,
         cancelled: Callable[[], bool] | None = None, keep_view: bool = False,
         cap: int | None = None) -> list[Finding]:
    """Every finding, highest severity first, then by rule and id (`findings`, as a list)."""
    return list(findings(store, progress, cancelled, keep_view, cap))


def findings(store: Store, progress: Progress | None = None,
             cancelled: Callable[[], bool] | None = None, keep_view: bool = False,
             cap: int | None = None) -> Found:
    """Every finding, highest severity first, then by rule and id, kept packed (Found).
    keep_view: the store's belief tables (`judged`, `beliefs`) are left as they were (the
    TUI's screens read them); else scan empties them. cap: DuckDB's memory while it judges
    every key (a command's own connection only: beliefs.in_ranges)."""
    found = Found()
    with store.lock:
        # Judging every belief (_judged) first, the walks over the citations next, then the
        # texts a chunk at a time, then the rest: the steps with the largest working memory
        # run before the others have left theirs with DuckDB's allocator. At the peak, 5M
        # bench store: the steps alone 451-455 MB this way, 506 MB with the walks after the
        # texts (`scan --json` 459-520 MB, 535 MB); 1M store, 125,000-entry chunks: 495-515 MB
        # with judging first, 537-545 MB with the texts first.
        if progress:
            progress(0.0, "contested, unsupported")
        capped = cap is not None and not keep_view
        _judged(store, keep_view, cap, found)
        _read(store, lambda: _rules(store, LINEAGE_RULES, 0.1, progress, cancelled, found), capped)
        _text(store, progress, cancelled, capped, found)
        _read(store, lambda: _rules(store, LATE_RULES, 0.9, progress, cancelled, found), capped)
    return found


def _read(store: Store, read: Callable[[], T], capped: bool) -> T:
    """read(); capped (a command's own connection): with DuckDB's memory capped (lean.CAP),
    so that the blocks of the view a rule reads are let go once read. Uncapped, the rules after
    the texts kept them: on the 1M wide-long bench store they grew the process by 47 MB while
    finding nothing, and `scan --json` at 5M events peaked at 777 MB."""
    return lean.capped(store.con, read) if capped else read()


def _rules(store: Store, rules: tuple, start: float, progress: Progress | None,
           cancelled: Callable[[], bool] | None, found: Found) -> None:
    for i, rule in enumerate(rules):
        if cancelled and cancelled():
            raise Cancelled()
        if progress:
            progress(start + 0.1 * i / len(rules), rule.__name__.strip("_").replace("_", " "))
        found.add(rule(store))
