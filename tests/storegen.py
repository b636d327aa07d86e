"""Write small stores for tests: entries and events with chosen times, chained for real."""

from __future__ import annotations

from pathlib import Path

from inspector.store.append import LogWriter, event_draft, init_store
from inspector.store.model import ENTRY_DEFAULTS


def entry(id, entity="e", attribute="a", value="v", kind="observation", source="tool:t",
          observed_at="2025-01-01T00:00:00Z", **kw) -> dict:
    return {**ENTRY_DEFAULTS, "id": id, "entity": entity, "attribute": attribute, "value": value,
            "kind": kind, "source": source, "observed_at": observed_at, "status": "active", **kw}


def write_store(root: Path, events: list[tuple[str, str, dict]], actor: str = "agent:1") -> Path:
    """events: (at, op, after) in order; before is the previous after of the same id."""
    paths = init_store(root)
    states: dict[str, dict] = {}
    drafts = []
    for at, op, after in events:
        draft = event_draft(op, after["id"], actor, before=states.get(after["id"]), after=after)
        draft["at"] = at
        states[after["id"]] = after
        drafts.append(draft)
    with LogWriter(paths) as writer:
        writer.append(drafts)
    return root


def deep(n: int, leaf=None) -> list:
    """A list nested n levels deep (a hostile value), holding `leaf` at the bottom if given."""
    root: list = []
    node = root
    for _ in range(n - 1):
        child: list = []
        node.append(child)
        node = child
    if leaf is not None:
        node.append(leaf)
    return root
