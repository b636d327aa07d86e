"""Lineage (DESIGN §4): what an entry rests on, what rests on it, its independent sources.

The walks are recursive queries with a visited guard; cycles are then found among the few
entries the walks reached.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine import duckdb
from .queries import sql


@dataclass
class Lineage:
    memory_id: str
    ancestors: list[str]
    descendants: list[str]
    independent_sources: list[str]
    cycles: list[list[str]]
    dangling: list[str]
    hidden: int  # cited entries that exist but lie outside the --scope filter

    def as_json(self) -> dict:
        return {"memory_id": self.memory_id, "ancestors": self.ancestors,
                "descendants": self.descendants, "independent_sources": self.independent_sources,
                "cycles": self.cycles, "dangling": self.dangling, "hidden": self.hidden}


def ancestors(con: duckdb.DuckDBPyConnection, memory_id: str) -> tuple[list[str], list[str], int]:
    """(present ancestors, dangling cited ids, count of cited entries hidden by the filter)."""
    ids = [i for (i,) in con.execute(sql("lineage_ancestors"), {"id": memory_id}).fetchall()
           if i is not None]                 # a malformed entry's `null` citation: no id
    known = dict(con.execute(sql("lineage_presence"), {"ids": ids}).fetchall()) if ids else {}
    present = [i for i in ids if known.get(i) and i != memory_id]
    dangling = [i for i in ids if i not in known]
    hidden = sum(1 for i in ids if i in known and not known[i])
    return present, dangling, hidden


def descendants(con: duckdb.DuckDBPyConnection, memory_id: str) -> list[str]:
    return [i for (i,) in con.execute(sql("lineage_descendants"), {"id": memory_id}).fetchall()
            if i != memory_id]


def independent_sources(con: duckdb.DuckDBPyConnection, memory_id: str,
                        ancestor_ids: list[str]) -> list[str]:
    """The distinct roots among the entry and its ancestors (entries citing nothing)."""
    ids = [memory_id, *ancestor_ids]
    return [i for (i,) in con.execute(sql("lineage_roots"), {"ids": ids}).fetchall()]


def lineage(con: duckdb.DuckDBPyConnection, memory_id: str) -> Lineage:
    up, dangling, hidden = ancestors(con, memory_id)
    down = descendants(con, memory_id)
    nodes = sorted({memory_id, *up, *down})
    edges = con.execute(sql("lineage_inner_edges"), {"ids": nodes}).fetchall()
    return Lineage(memory_id, up, down, independent_sources(con, memory_id, up),
                   cycles(edges), dangling, hidden)


def cycles(edges: list[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components with a cycle (Tarjan, iterative), each sorted. A
    citation of no id (a malformed entry's `null` in its justification) links nothing."""
    graph: dict[str, list[str]] = {}
    for src, dst in edges:
        if src is None or dst is None:
            continue
        graph.setdefault(src, []).append(dst)
        graph.setdefault(dst, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root not in index:
            _strongconnect(root, graph, index, low, stack, on_stack, found)
    return sorted(found)


def _strongconnect(root, graph, index, low, stack, on_stack, found) -> None:
    work = [(root, iter(graph[root]))]
    index[root] = low[root] = len(index)
    stack.append(root)
    on_stack.add(root)
    while work:
        node, children = work[-1]
        child = next(children, None)
        if child is not None:
            if child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(graph[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[node])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.append(sorted(component))
