"""`ingest`: append a feed of entries through the write gate (DESIGN §2.3, §8).

A feed is JSONL, one entry (§2.2) a line. New ids are written, or held when the gate holds
them; known ids are updated (the line's fields replace the current ones). `status` and
`held_reason` in a feed are ignored: the gate decides. A bad line refuses the whole feed
(nothing written) unless `skip_bad_lines`, which writes the rest and lists the bad ones.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from . import gate
from .append import LogWriter, event_draft
from .audit import parse_line
from .errors import BadInput
from .load import Store
from .logfile import StorePaths
from .model import (ENTRY_DEFAULTS, ENTRY_REQUIRED, KINDS, LAYERS, TIME_FIELDS, is_actor,
                    is_rfc3339, is_source, now_utc)
from .queries import sql

IGNORED = ("status", "held_reason")
STRING_FIELDS = ("id", "entity", "attribute", "kind", "source", "layer", "scope")
OPTIONAL_STRINGS = ("subject", "context", "retention", "sensitivity")


@dataclass
class IngestResult:
    written: list[str] = field(default_factory=list)
    held: dict[str, str] = field(default_factory=dict)      # id -> held_reason
    updated: list[str] = field(default_factory=list)
    rejected: list[tuple[int, str]] = field(default_factory=list)
    feed: str = ""

    def as_json(self) -> dict:
        return {"written": len(self.written), "held": len(self.held), "updated": len(self.updated),
                "rejected_lines": [{"line": n, "error": e} for n, e in self.rejected],
                "held_ids": self.held}

    def refusal(self) -> BadInput:
        line, error = self.rejected[0]
        more = len(self.rejected) - 1
        extra = f" (and {more} more bad line{'s' if more != 1 else ''})" if more else ""
        return BadInput(f"{self.feed} line {line}: {error}{extra}; nothing was written "
                        "(fix the line, or pass --skip-bad-lines to write the others)")


def check_entry(entry: dict) -> str | None:
    """What is wrong with a complete entry state, naming the field; None when it is sound."""
    for name in ENTRY_REQUIRED:
        if name not in entry:
            return f'field "{name}" is missing'
    for name in STRING_FIELDS:
        if not isinstance(entry.get(name), str) or (name != "scope" and not entry[name]):
            return f'field "{name}" must be a non-empty string' if name != "scope" else 'field "scope" must be a string'
    checks = (
        (entry["kind"] in KINDS, 'field "kind" must be observation, claim, inference or summary'),
        (entry["layer"] in LAYERS, 'field "layer" must be episodic, semantic or procedural'),
        (is_source(entry["source"]), 'field "source" must be class:id[/detail] with class user, '
                                     'operator, system, agent, tool, document or web'),
        (_is_int(entry["authority"]), 'field "authority" must be an integer'),
        (_is_confidence(entry["confidence"]), 'field "confidence" must be a number from 0 to 1 or null'),
        (_id_list(entry["justification"]), 'field "justification" must be a list of ids'),
        (_id_list(entry["tags"]), 'field "tags" must be a list of strings'),
    )
    for ok, message in checks:
        if not ok:
            return message
    return _check_times(entry) or _check_optional(entry)


def _check_times(entry: dict) -> str | None:
    for name in TIME_FIELDS:
        value = entry.get(name)
        if (value is not None or name == "observed_at") and not is_rfc3339(value):
            return f'field "{name}" must be an RFC 3339 time (e.g. 2025-03-01T04:06:55Z)'
    return None


def _check_optional(entry: dict) -> str | None:
    for name in OPTIONAL_STRINGS:
        if entry.get(name) is not None and not isinstance(entry[name], str):
            return f'field "{name}" must be a string or null'
    return None


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_confidence(value) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)
                             and 0 <= value <= 1)


def _id_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


def read_feed(path: Path) -> list[tuple[int, dict | str]]:
    """(line number, entry object or the reason the line is bad) for each non-empty line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BadInput(f"cannot read feed {path}: {exc.strerror}") from None
    out: list[tuple[int, dict | str]] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            out.append((number, parse_line(raw)))
        except (ValueError, UnicodeDecodeError) as exc:
            out.append((number, f"not a JSON object ({exc})"))
    return out


class _Planner:
    """Turns feed lines into event drafts against the loaded store, line by line."""

    def __init__(self, store: Store, actor: str):
        self.store, self.actor = store, actor
        self.current: dict[str, dict] = {}   # id -> state, for ids seen in this feed
        rows = store.con.execute(sql("suppressed_subjects")).fetchall()
        self.suppression = gate.Suppression({(salt, digest) for salt, digest in rows})

    def state_of(self, memory_id: str) -> dict | None:
        if memory_id in self.current:
            return self.current[memory_id]
        row = self.store.con.execute(sql("entry_state"), {"id": memory_id}).fetchone()
        return json.loads(row[0]) if row else None

    def draft(self, line: dict) -> tuple[dict, str]:
        """(event draft, "write" | "update"); ValueError names what is wrong."""
        memory_id = line.get("id")
        if not isinstance(memory_id, str) or not memory_id:
            raise ValueError('field "id" must be a non-empty string')
        before = self.state_of(memory_id)
        if before is not None and before.get("status") == "erased":
            raise ValueError(f"id {memory_id} was erased; an erased id is never reused")
        incoming = {k: v for k, v in line.items() if k not in IGNORED}
        after = {**ENTRY_DEFAULTS, **(before or {}), **incoming}
        after["status"] = before["status"] if before else "active"
        after["held_reason"] = before.get("held_reason") if before else None
        problem = check_entry(after)
        if problem:
            raise ValueError(problem)
        reason = gate.text_reason(after, self.suppression)
        op = "update" if before else "write"
        if reason:
            after.update(status="held", held_reason=reason)
        self.current[memory_id] = after
        return event_draft("hold" if reason else op, memory_id, self.actor, before=before,
                           after=after), op


def _hold_unsupported(store: Store, drafts: list[dict]) -> None:
    """Hold the feed's summaries that the belief rule would not support (§2.3)."""
    summaries = {d["memory_id"]: d for d in drafts
                 if d["body"]["after"]["kind"] == "summary" and d["op"] != "hold"}
    if not summaries:
        return
    with store.what_if(drafts):
        rows = store.con.execute(sql("unsupported_among"),
                                 {"tk": now_utc(), "ids": list(summaries)}).fetchall()
    for (memory_id,) in rows:
        draft = summaries[memory_id]
        draft["op"] = "hold"
        draft["body"]["after"].update(status="held", held_reason=gate.UNSUPPORTED)


def plan_feed(store: Store, feed: list[tuple[int, dict | str]], actor: str,
              result: IngestResult) -> list[dict]:
    planner = _Planner(store, actor)
    drafts: list[dict] = []
    kinds: list[str] = []
    for number, line in feed:
        try:
            if isinstance(line, str):
                raise ValueError(line)
            draft, kind = planner.draft(line)
        except ValueError as exc:
            result.rejected.append((number, str(exc)))
            continue
        drafts.append(draft)
        kinds.append(kind)
    _hold_unsupported(store, drafts)
    for draft, kind in zip(drafts, kinds):
        after = draft["body"]["after"]
        if draft["op"] == "hold":
            result.held[draft["memory_id"]] = after["held_reason"]
        elif kind == "update":
            result.updated.append(draft["memory_id"])
        else:
            result.written.append(draft["memory_id"])
    return drafts


def ingest(paths: StorePaths, feed_path: Path, *, actor: str, skip_bad_lines: bool = False) -> IngestResult:
    """Plan the feed under the store's lock against the log as it is, then append it."""
    if not is_actor(actor):
        raise BadInput(f"--actor {actor!r} is not of the form class:id (e.g. agent:427)")
    feed = read_feed(feed_path)
    store = Store(paths.root, warn=True)
    with LogWriter(paths) as writer:
        store.refresh()
        result = IngestResult(feed=str(feed_path))
        drafts = plan_feed(store, feed, actor, result)
        if result.rejected and not skip_bad_lines:
            result.written, result.held, result.updated = [], {}, []
            return result
        writer.append(drafts)
    return result
