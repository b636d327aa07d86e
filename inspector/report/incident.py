"""What an incident report says, gathered from a loaded store (DESIGN §7b): the store and the
verdict on its chain, the belief changes in the window with their causes, the held queue,
findings by severity, the actions taken, the certificates, and a lineage graph for each
changed belief. Values are masked here, once, before any renderer sees them; every id whose
data the report shows is collected in `mentions` (erasure deletes the report with them)."""

from __future__ import annotations

import shlex

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from ..present.mask import is_secret, mask_text, shown_value
from ..store import detect
from ..store import audit, diff, lineage, macros, scan
from ..store.beliefs import RULE_NOTE, at_head
from ..store.load import Store
from ..store.model import SEVERITIES, format_time
from ..store.queries import sql
from ..store.reports import masking_fields

MAX_CHANGES = 500          # changes listed; the rest are counted, with the command that lists them
MAX_PICTURES = 50          # lineage pictures drawn
MAX_FINDINGS = 200         # findings listed (highest severity first); all are counted
MAX_NODES = 60             # entries one picture draws
STEP_BACK = timedelta(seconds=1)                        # "before the first event"
EARLIEST = datetime.min.replace(tzinfo=timezone.utc)    # an event's `at` is never earlier


@dataclass
class Node:
    memory_id: str
    label: str             # entity · attribute
    kind: str
    status: str
    source: str
    root: bool             # an independent source: it cites nothing


@dataclass
class Picture:
    """The lineage of one belief: it and what it rests on, as layers from the belief down."""

    memory_id: str
    title: str
    layers: list[list[Node]]
    edges: list[tuple[str, str]]     # (entry, what it cites)
    descendants: int
    cut: int                         # ancestors left out past MAX_NODES


@dataclass
class Incident:
    store: str
    head: str | None
    verdict: dict
    since: datetime | None
    until: datetime
    generated: datetime
    changes: list[dict]
    more_changes: int
    held: dict
    findings: list[dict]             # the first MAX_FINDINGS, messages masked
    severity_counts: dict[str, int]
    rule_counts: dict[str, int]
    actions: list[dict]
    certificates: list[str]
    pictures: list[Picture]
    mentions: set[str] = field(default_factory=set)
    rule: str = RULE_NOTE

    @property
    def window(self) -> dict:
        return {"since": format_time(self.since), "until": format_time(self.until)}

    @property
    def more_findings(self) -> int:
        return sum(self.severity_counts.values()) - len(self.findings)

    def scan_command(self) -> str:
        """The command that lists every finding; the store's path quoted for a shell (a report
        shows it as untrusted text: a path may hold anything, helper-73)."""
        return f"inspector scan {shlex.quote(str(self.store))} --json"

    def diff_command(self) -> str:
        since = f" --from {format_time(self.since)}" if self.since else ""
        return f"inspector diff {shlex.quote(str(self.store))}{since} --to {format_time(self.until)} --json"


def gather(store: Store, since: datetime | None, until: datetime, now: datetime) -> Incident:
    """Everything the report shows, values masked, ids collected."""
    con = store.con
    start = since or _before_first(store, until)
    found = diff.changes(con, start, until)
    listed = _masked(store, found[:MAX_CHANGES])
    findings = [f.as_json() for f in scan.scan(store)]
    incident = Incident(
        store=str(store.root), head=store.head, verdict=audit.verify(store.paths).as_json(),
        since=since, until=until, generated=now, changes=listed,
        more_changes=max(0, len(found) - MAX_CHANGES), held=_held(store, until),
        findings=masked_findings(store, findings[:MAX_FINDINGS]),
        severity_counts={s: sum(f["severity"] == s for f in findings) for s in reversed(SEVERITIES)},
        rule_counts=dict(Counter(f["rule"] for f in findings).most_common()),
        actions=_actions(store, start, until),
        certificates=[c for (c,) in con.execute(sql("report_certificates"),
                                                {"since": start, "until": until}).fetchall()],
        pictures=[_picture(store, c) for c in listed[:MAX_PICTURES] if c["after"] or c["before"]])
    incident.mentions = _mentions(incident)
    return incident


def _before_first(store: Store, until: datetime) -> datetime:
    """A moment before the first event (or `until` for an empty log): the whole history.
    Nothing precedes the earliest time there is (0001-01-01T00:00:00Z, which a log may hold):
    from there, the window starts at it, as `--since` that time would."""
    first = store.con.execute(sql("report_first_event")).fetchone()[0]
    if not first:
        return until
    end = min(first, until)
    return end - STEP_BACK if end - EARLIEST >= STEP_BACK else EARLIEST


def _masked(store: Store, changes: list[dict]) -> list[dict]:
    ids = {side["memory_id"] for c in changes for side in (c["before"], c["after"]) if side}
    fields = masking_fields(store.con, sorted(ids))
    for change in changes:
        for side in (change["before"], change["after"]):
            if side:
                side["value"] = shown_value({**fields.get(side["memory_id"], {}),
                                             "value": side["value"]})
    return changes


def masked_findings(store: Store, found: list[dict]) -> list[dict]:
    """Findings (as JSON) whose messages are fit for a person: in the message of a finding
    about a secret entry, every word of the entry's value is masked (a detector's excerpt may
    quote the credential itself). The command line's `scan` prints them this way too."""
    shown = masking_fields(store.con, sorted({f["memory_id"] for f in found}), values=True)
    for finding in found:
        entry = shown.get(finding["memory_id"], {})
        if is_secret(entry):
            finding["message"] = mask_words(finding["message"], entry.get("value"))
    return found


def mask_words(text: str, value) -> str:
    """`text` with each string of `value`, and each word of them (4 characters or more, quotes
    and brackets stripped), masked as the value would be."""
    pieces = set()
    for string in detect.texts_of(value):
        pieces.add(string)
        pieces.update(w.strip("'\"()[]{}<>.,;:!?") for w in string.split())
    for piece in sorted((p for p in pieces if len(p) >= 4), key=len, reverse=True):
        text = text.replace(piece, mask_text(piece))
    return text


def _held(store: Store, until: datetime) -> dict:
    count, oldest, since = store.con.execute(macros.sql(store.con, "report_held_queue"), {
        "tk": until, "now": at_head(store.con, until)}).fetchone()
    return {"count": count, "oldest_id": oldest, "oldest_since": format_time(since)}


def _actions(store: Store, since: datetime, until: datetime) -> list[dict]:
    rows = store.con.execute(sql("report_actions"), {"since": since, "until": until}).fetchall()
    return [{"batch": batch, "seqs": [first, last], "at": format_time(at), "actor": actor,
             "op": op, "reason": reason, "events": events, "memory_ids": list(ids),
             "statuses": list(statuses)}
            for batch, first, last, at, actor, op, reason, events, ids, statuses in rows]


def _picture(store: Store, change: dict) -> Picture:
    """The lineage of the change's belief after (or, when it ended, before) the window."""
    memory_id = (change["after"] or change["before"])["memory_id"]
    up, _, _ = lineage.ancestors(store.con, memory_id)
    kept = [memory_id, *up[:MAX_NODES - 1]]
    edges = store.con.execute(sql("lineage_inner_edges"), {"ids": kept}).fetchall()
    nodes = _nodes(store, kept, edges)
    title = f"{change['entity']} · {change['attribute']} in {change['scope'] or '(global)'}"
    return Picture(memory_id, title, _layers(memory_id, kept, edges, nodes), edges,
                   len(lineage.descendants(store.con, memory_id)), len(up) + 1 - len(kept))


def _nodes(store: Store, ids: list[str], edges: list[tuple[str, str]]) -> dict[str, Node]:
    citing = {s for s, _ in edges}
    rows = store.con.execute(sql("report_nodes"), {"ids": ids}).fetchall()
    found = {m: Node(m, f"{e} · {a}", k, st, src, False)
             for m, e, a, k, st, src, _ in rows}
    for memory_id in ids:
        node = found.setdefault(memory_id, Node(memory_id, "(not loaded)", "", "", "", False))
        node.root = memory_id not in citing and node.kind != ""
    return found


def _layers(top: str, ids: list[str], edges: list[tuple[str, str]],
            nodes: dict[str, Node]) -> list[list[Node]]:
    """Each entry on the layer of its longest citation path from the belief (a cycle is cut
    where it comes back), so that every arrow points down."""
    depth = {top: 0}
    cites: dict[str, list[str]] = {}
    for src, dst in edges:
        cites.setdefault(src, []).append(dst)
    frontier = [top]
    for _ in range(len(ids)):
        nxt = []
        for src in frontier:
            for dst in cites.get(src, []):
                if depth.get(dst, -1) < depth[src] + 1 <= len(ids):
                    depth[dst] = depth[src] + 1
                    nxt.append(dst)
        frontier = nxt
        if not frontier:
            break
    for memory_id in ids:
        depth.setdefault(memory_id, 1)
    layers: list[list[Node]] = [[] for _ in range(max(depth.values()) + 1)]
    for memory_id in sorted(ids):
        layers[depth[memory_id]].append(nodes[memory_id])
    return [layer for layer in layers if layer]


def _mentions(incident: Incident) -> set[str]:
    ids: set[str] = set()
    for change in incident.changes:
        ids.update(side["memory_id"] for side in (change["before"], change["after"]) if side)
        ids.update(cause["memory_id"] for cause in change["causes"])
    ids.update(f["memory_id"] for f in incident.findings)
    for action in incident.actions:
        ids.update(action["memory_ids"])
    for picture in incident.pictures:
        ids.update(node.memory_id for layer in picture.layers for node in layer)
    if incident.held["oldest_id"]:
        ids.add(incident.held["oldest_id"])
    return ids
