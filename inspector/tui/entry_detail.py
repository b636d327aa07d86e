"""What the detail pane shows of one entry: the entry, its history and rivals as judged in a
context, what it rests on and what rests on it, and why the gate held it. Read by the Session
(EntryReads) from worker threads."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping

from ..present.mask import is_secret, mask_text, mask_value
from ..store import beliefs, entries, gate, lineage
from ..store.engine import duckdb
from ..store.model import sensitivity_of
from ..store.queries import sql
from .sources import masked, rows_of


TREE_NODES = 300        # the pane's tree of what an entry rests on stops at this many nodes
DEPENDENTS = 200        # and its list of what rests on it at this many entries
HISTORY = 50            # and its history at this many events, the newest


@dataclass
class Detail:
    """What the detail pane shows for one entry in one context."""

    memory_id: str
    context: str
    entry: dict
    why: str = ""
    reason: str | None = None
    belief: str | None = None
    authority: int | None = None          # effective authority (DESIGN §3.2)
    rivals: list[dict] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    tree: list[dict] = field(default_factory=list)       # ancestors: {id, label, children}
    tree_cut: bool = False                # the tree stops at TREE_NODES with citations left
    descendants: list[dict] = field(default_factory=list)  # {id, label}, the first DEPENDENTS
    dependents: int = 0                   # how many rest on it in all
    sources: list[str] = field(default_factory=list)
    ancestors: int = 0
    dangling: list[str] = field(default_factory=list)
    cycles: list[list[str]] = field(default_factory=list)
    lineage_loaded: bool = False
    secret: bool = False                  # its value is shown masked unless revealed
    held_why: str = ""                    # a held entry: what the gate matched
    change: str = ""                      # the diff view: the change it is opened for
    causes: list[dict] = field(default_factory=list)   # and the events that made it
    causes_truncated: bool = False        # the causes stop short (diff's bounds)
    as_of: str | None = None              # the view's knowledge time, when it is not now
    then: dict | None = None              # and the entry's last event at or before it (None: none yet)
    valid_at: str | None = None           # the view's valid time, when one was typed


class EntryReads:
    """The Session's reads of one entry (it provides reader(), spec and store)."""

    def detail(self, memory_id: str, context: str | None, with_lineage: bool = True) -> Detail | None:
        """The entry, its history and its rivals; with_lineage adds what it rests on and what
        rests on it (the slower half, which the pane can take a moment later). Read again
        whole, once the load in progress has ended, when a reload swapped the view under it
        in the middle of judging its key: a statement of that transaction cannot be run again
        on its own (the reader's retry raised "Database name base was already used … in this
        transaction", and the worker's error closed the app: helper-76)."""
        try:
            return self._detail(memory_id, context, with_lineage)
        except (duckdb.TransactionException, duckdb.CatalogException):
            with self.store.lock:       # the load in progress, if any, has ended
                pass
            return self._detail(memory_id, context, with_lineage)

    def _detail(self, memory_id: str, context: str | None, with_lineage: bool) -> Detail | None:
        with self.reader() as cur:
            entry = entries.state(cur, memory_id)
            if entry is None:
                return None
            context = entry.get("scope") or "" if context is None else context
            found = Detail(memory_id, context, entry, events=entries.events(cur, memory_id),
                           secret=is_secret(entry))
            found.held_why = held_why({**entry, "hold_reason": hold_reason(found.events)})
            for event in found.events:
                event["secret"] = found.secret or is_secret({**entry, "value": event["value"]})
            if self.as_of_typed:          # the rows are as of a time: so is the pane's first line
                tk = self.spec.moment.tk
                found.as_of = tk.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
                found.then = next((e for e in reversed(found.events)
                                   if datetime.fromisoformat(e["at"]) <= tk), None)
            if self.valid_at_typed:       # judged valid at that time: its why says so
                tv = self.spec.moment.tv
                found.valid_at = tv.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
            if entry.get("status") != "erased":
                self._judge(cur, found)
            if with_lineage:
                self.add_lineage(found, cur)
        return found

    def add_lineage(self, found: Detail, cur=None) -> Detail:
        if cur is None:
            with self.reader() as cur:
                return self.add_lineage(found, cur)
        self._lineage(cur, found)
        found.lineage_loaded = True
        return found

    def _judge(self, cur, found: Detail) -> None:
        key, spec = (found.entry["entity"], found.entry["attribute"]), self.spec
        with entries.judged_now(cur, key, spec):       # in cur's own tables: no lock
            judged = entries.judgement(cur, spec, found.entry, found.context)
        found.rivals = [{**r, "value": beliefs.json_value(r["value"])} for r in judged["rows"]
                        if r["memory_id"] != found.memory_id]
        flags = {r["memory_id"]: r for r in rows_of(cur.execute(
            sql("tui_entry_tree"), {"ids": [r["memory_id"] for r in found.rivals]}))}
        for rival in found.rivals:
            if secret_row({**flags.get(rival["memory_id"], {}), "value": rival["value"]}, parsed=True):
                rival["value"] = mask_value(rival["value"])
        found.why, found.reason = judged["why"], judged["reason"]
        found.authority, found.belief = judged["authority"], judged["belief"]

    def _lineage(self, cur, found: Detail) -> None:
        whole = lineage.lineage(cur, found.memory_id)
        found.sources, found.ancestors = whole.independent_sources, len(whole.ancestors)
        found.dangling, found.cycles = whole.dangling, whole.cycles
        nodes = sorted({found.memory_id, *whole.ancestors, *whole.descendants[:DEPENDENTS]})
        labels = {r["memory_id"]: r for r in masked(rows_of(cur.execute(sql("tui_entry_tree"),
                                                                     {"ids": nodes})))}
        edges = cur.execute(sql("lineage_edges"), {"ids": nodes}).fetchall()
        found.tree, found.tree_cut = _tree(found.memory_id, edges, labels)
        found.descendants = [{"id": i, "row": labels.get(i)} for i in whole.descendants[:DEPENDENTS]]
        found.dependents = len(whole.descendants)


def secret_row(row: Mapping[str, Any], parsed: bool = False) -> bool:
    value = row.get("value")
    if not parsed and isinstance(value, str):
        value = beliefs.json_value(value)
    return is_secret({"value": value, "sensitivity": row.get("sensitivity"),
                      "held_reason": row.get("held_reason")})


def hold_reason(events: list[dict]) -> str | None:
    """The reason the entry's last event gives for holding it, as the Review screen reads it
    (tui_held_source): a revert's reason is the operator's, not why the entry is held."""
    last = events[-1] if events else None
    return last["reason"] if last and last["op"] != "revert" else None


def held_why(entry: Mapping[str, Any]) -> str:
    """Why the gate held an entry, in words: the instruction or credential it matched (a
    credential's excerpt is masked) and the hold event's own reason, if it gave one; "" when
    the entry is not held."""
    if entry.get("status") != "held":
        return ""
    reason = entry.get("held_reason")
    own = str(entry["hold_reason"]) if entry.get("hold_reason") else ""
    if reason and own.startswith(f"{reason}: "):
        own = own[len(reason) + 2:]     # the gate's own words after its code (gate.judge)
    if not own and reason == gate.SECRET and sensitivity_of(entry.get("sensitivity")) == "secret":
        # No hold event's words (the approve dialog has only the entry's state): the gate
        # holds an entry marked secret for its marking, before it looks at the value
        own = gate.MARKED_SECRET
    hit = gate.secret_finding(entry) if reason == gate.SECRET else (
        gate.rule_finding(entry) if reason == gate.RULE else None)
    if hit and own.startswith(f"{hit.category}: "):
        own = ""                        # what the gate matched, which follows as found now
    parts = [own] if own else []
    if hit:
        excerpt = hit.excerpt if reason == gate.SECRET or not is_secret(entry) else mask_text(hit.excerpt)
        parts.append(f"{hit.category}: {excerpt!r}")
    elif reason == gate.RULE and entry.get("layer") == "procedural":
        parts.append("a procedural entry")
    if reason == gate.RULE:
        parts.append(f"from untrusted {entry.get('source')}")
    if not parts and reason in IN_WORDS:
        # No hold event's words to show (the entry came back to the queue by a revert, whose
        # reason is the operator's): the gate's reason in words, never its bare code (helper-64)
        parts.append(IN_WORDS[reason])
    return " · ".join(parts)


# What each held_reason means, for an entry whose hold event's own words are not at hand.
IN_WORDS = {gate.SUPPRESSED: "it names a data subject erased before",
            gate.SECRET: "the value looks like a credential",
            gate.PROTECTED: "the key policy does not let this source write this key",
            gate.UNSUPPORTED: "a summary that what it cites does not support"}


def held_rows(row: dict) -> dict:
    """A Review row with `held_why`, worked out before its value is masked."""
    value = beliefs.json_value(row["value"]) if isinstance(row.get("value"), str) else row.get("value")
    row["held_why"] = held_why({**row, "value": value, "status": "held"}) or row.get("held_reason") or ""
    return row


def _tree(root: str, edges, labels, limit: int = TREE_NODES) -> tuple[list[dict], bool]:
    """The ancestors of `root` as nested nodes, at most `limit` of them (a node met again on
    its own path is a cycle), and whether citations were left out past the limit."""
    cites: dict[str, list[str]] = {}
    for src, dst in edges:
        cites.setdefault(src, []).append(dst)
    budget = [limit]
    cut = [False]

    def grow(node: str, path: frozenset) -> list[dict]:
        out = []
        for child in cites.get(node, []):
            if budget[0] <= 0:
                cut[0] = True
                break
            budget[0] -= 1
            cycle = child in path
            out.append({"id": child, "row": labels.get(child), "cycle": cycle,
                        "children": [] if cycle else grow(child, path | {child})})
        return out
    tree = grow(root, frozenset({root}))
    return tree, cut[0]
