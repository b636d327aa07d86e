"""The TUI's access to one store: the loaded Store, the belief view it shows, the row sources
its tables page from, and the planning and applying of actions. No widgets here: screens call
these from worker threads (each read takes its own DuckDB cursor) and post results back."""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Mapping

from ..store import beliefs, entries, lineage
from ..store.actions import Plan, Request, apply, make_plan
from ..store.beliefs import Moment, ViewSpec
from ..store.erasure import EraseRequest, ErasurePlan, apply_erasure, plan_erasure
from ..store.load import Store
from ..store.queries import sql


INDEXES = ("index_entries_id", "index_versions_id", "index_edges_src", "index_edges_dst",
           "index_known_ids_id")


def _rows(cursor) -> list[dict]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


class TableSource:
    """Rows of a position-numbered table (column vpos from 0), paged with vpos BETWEEN."""

    def __init__(self, session: "Session", count_query: str, page_query: str, **params: Any):
        self.session, self.count_query, self.page_query, self.params = session, count_query, page_query, params

    def count(self) -> int:
        with self.session.reader() as cur:
            return cur.execute(sql(self.count_query), self.params).fetchone()[0]

    def fetch(self, first: int, last: int) -> list[Mapping[str, Any]]:
        with self.session.reader() as cur:
            return _rows(cur.execute(sql(self.page_query), {**self.params, "first": first, "last": last}))


class ListSource:
    """Rows already in memory (a small derived result such as scan findings)."""

    def __init__(self, rows: list[Mapping[str, Any]]):
        self.rows = rows

    def count(self) -> int:
        return len(self.rows)

    def fetch(self, first: int, last: int) -> list[Mapping[str, Any]]:
        return self.rows[first:last + 1]


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
    descendants: list[dict] = field(default_factory=list)  # {id, label}
    sources: list[str] = field(default_factory=list)
    ancestors: int = 0
    dangling: list[str] = field(default_factory=list)
    cycles: list[list[str]] = field(default_factory=list)
    lineage_loaded: bool = False


class Session:
    """One store opened by the TUI, with the operator who acts on it."""

    def __init__(self, path: str | os.PathLike, *, scope: str | None = None,
                 operator: str = "operator", read_only: bool = False):
        self.path, self.scope, self.operator, self.read_only = path, scope, operator, read_only
        self.store: Store | None = None
        self.spec = ViewSpec(None, Moment.resolve())
        self.live_time = True          # the view follows "now" (no --as-of typed)
        self.needle = ""
        self.chain: dict | None = None  # the last audit --verify report
        self._whole: Store | None = None

    def open(self) -> Store:
        self.store = Store(self.path, scope=self.scope)
        return self.store

    def index(self) -> None:
        """Point-lookup indexes for what the screens ask on every keystroke."""
        with self.store.lock:
            for name in INDEXES:
                self.store.con.execute(sql(name))

    def acting_store(self) -> Store:
        """The store actions plan on: the whole store, even when the view is scoped (a cascade
        that leaves the scope must be counted to be refused)."""
        if self.scope is None:
            return self.store
        if self._whole is None:
            self._whole = Store(self.path, warn=False)
        else:
            self._whole.refresh()
        return self._whole

    @contextmanager
    def reader(self) -> Iterator[Any]:
        cursor = self.store.cursor()
        try:
            yield cursor
        finally:
            cursor.close()

    # -- the belief view ----------------------------------------------------------------------

    def set_view(self, context: str | None, as_of, valid_at) -> None:
        self.live_time = as_of is None and valid_at is None
        self.spec = ViewSpec(context, Moment.resolve(as_of, valid_at))

    def rebuild_view(self) -> int:
        """Materialize the view's beliefs and every screen's rows; return the belief rows."""
        if self.live_time:
            self.spec = replace(self.spec, moment=Moment.resolve())
        with self.store.lock, self.reader() as cur:
            beliefs.materialize(cur, self.spec)
            for name in ("tui_beliefs_all", "tui_held_rows", "tui_quarantine_rows", "tui_conflict_rows"):
                cur.execute(sql(name))
            if self.scope is not None:
                cur.execute(sql("tui_log_rows"))
            return self._filter(cur)

    def refilter(self, text: str) -> int:
        self.needle = text.lower()
        with self.store.lock, self.reader() as cur:
            return self._filter(cur)

    def _filter(self, cur) -> int:
        if self.needle:
            cur.execute(sql("tui_beliefs_filtered"), {"needle": self.needle})
            cur.execute(sql("tui_beliefs_filtered_view"))
        else:
            cur.execute(sql("tui_beliefs_unfiltered"))
        return cur.execute(sql("tui_beliefs_count")).fetchone()[0]

    def belief_source(self) -> TableSource:
        return TableSource(self, "tui_beliefs_count", "tui_beliefs_page")

    def held_source(self) -> TableSource:
        return TableSource(self, "tui_held_count", "tui_held_page")

    def quarantine_source(self) -> TableSource:
        return TableSource(self, "tui_quarantine_count", "tui_quarantine_page")

    def conflict_source(self) -> TableSource:
        return TableSource(self, "tui_conflicts_count", "tui_conflicts_page")

    def log_source(self) -> TableSource:
        if self.scope is None:
            return TableSource(self, "tui_log_count", "tui_log_page")
        return TableSource(self, "tui_log_count", "tui_log_scoped_page")

    def visible(self, screen: str, ids: list[str]) -> set[str]:
        """Which of `ids` a screen's table shows (findings and erasure show every id they list)."""
        if screen not in ("beliefs", "review", "quarantine", "conflicts"):
            return set(ids)
        with self.reader() as cur:
            return {i for (i,) in cur.execute(sql("tui_visible"), {"screen": screen, "ids": ids}).fetchall()}

    def find_belief(self, memory_id: str, scope: str) -> int | None:
        with self.reader() as cur:
            row = cur.execute(sql("tui_beliefs_find"), {"id": memory_id, "scope": scope}).fetchone()
        return row[0] if row else None

    def counts(self) -> dict:
        with self.reader() as cur:
            return _rows(cur.execute(sql("tui_counts")))[0]

    # -- one entry ----------------------------------------------------------------------------

    def detail(self, memory_id: str, context: str | None, with_lineage: bool = True) -> Detail | None:
        """The entry, its history and its rivals; with_lineage adds what it rests on and what
        rests on it (the slower half, which the pane can take a moment later)."""
        with self.reader() as cur:
            entry = entries.state(cur, memory_id)
            if entry is None:
                return None
            context = entry.get("scope") or "" if context is None else context
            found = Detail(memory_id, context, entry, events=entries.events(cur, memory_id))
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
        judged = entries.judgement(cur, self.spec, found.entry, found.context)
        found.rivals = [{**r, "value": beliefs.json_value(r["value"])} for r in judged["rows"]
                        if r["memory_id"] != found.memory_id]
        found.why, found.reason = judged["why"], judged["reason"]
        found.authority, found.belief = judged["authority"], judged["belief"]

    def _lineage(self, cur, found: Detail) -> None:
        whole = lineage.lineage(cur, found.memory_id)
        found.sources, found.ancestors = whole.independent_sources, len(whole.ancestors)
        found.dangling, found.cycles = whole.dangling, whole.cycles
        nodes = sorted({found.memory_id, *whole.ancestors, *whole.descendants[:200]})
        labels = {r["memory_id"]: r for r in _rows(cur.execute(sql("tui_entry_tree"), {"ids": nodes}))}
        edges = cur.execute(sql("lineage_edges"), {"ids": nodes}).fetchall()
        found.tree = _tree(found.memory_id, edges, labels)
        found.descendants = [{"id": i, "row": labels.get(i)} for i in whole.descendants[:200]]


def _tree(root: str, edges, labels, limit: int = 300) -> list[dict]:
    """The ancestors of `root` as nested nodes; a node met again on its own path is a cycle."""
    cites: dict[str, list[str]] = {}
    for src, dst in edges:
        cites.setdefault(src, []).append(dst)
    budget = [limit]

    def grow(node: str, path: frozenset) -> list[dict]:
        out = []
        for child in cites.get(node, []):
            if budget[0] <= 0:
                break
            budget[0] -= 1
            cycle = child in path
            out.append({"id": child, "row": labels.get(child), "cycle": cycle,
                        "children": [] if cycle else grow(child, path | {child})})
        return out
    return grow(root, frozenset({root}))


def plan_action(session: Session, action: str, ids: list[str], cascade: bool | None) -> Plan:
    """A plan with a placeholder reason (the modal asks for the real one)."""
    request = Request(action, "(reason asked at confirm)", session.operator, tuple(ids),
                      cascade=cascade, scope=session.scope)
    store = session.acting_store()
    with store.lock:
        return make_plan(store, request)


def apply_action(session: Session, plan: Plan, reason: str) -> Plan:
    store = session.acting_store()
    with store.lock:
        done = apply(store, replace(plan, request=replace(plan.request, reason=reason)))
    if store is not session.store:
        session.store.refresh()
    return done


def plan_erase(session: Session, subject: str | None, ids: list[str]) -> ErasurePlan:
    request = EraseRequest("(reason asked at confirm)", session.operator, subject, tuple(ids))
    with session.store.lock:
        return plan_erasure(session.store, request)


def apply_erase(session: Session, plan: ErasurePlan, reason: str) -> ErasurePlan:
    with session.store.lock:
        return apply_erasure(session.store, replace(plan, request=replace(plan.request, reason=reason)))
