"""`ingest`: append a feed of entries through the write gate (DESIGN §2.3, §8).

A feed is JSONL, one entry (§2.2) a line. New ids are written, or held when the gate holds
them; known ids are updated (the line's fields replace the current ones). `status` and
`held_reason` in a feed are ignored: the gate decides. A bad line refuses the whole feed
(nothing written) unless `skip_bad_lines`, which writes the rest and lists the bad ones.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from . import jsonsafe
from . import gate, policy, stepwise
from .append import LogWriter
from .audit import parse_line
from .beliefs import at_head
from .errors import BadInput
from .load import Store
from .logfile import StorePaths, shell_path
from .model import is_actor, now_utc
from .queries import sql
from .detect import batch
from .writes import admit, merged, personal_data_in


@dataclass
class IngestResult:
    written: list[str] = field(default_factory=list)
    held: dict[str, str] = field(default_factory=dict)      # id -> held_reason
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    rejected: list[tuple[int, str]] = field(default_factory=list)
    feed: str = ""
    refused: bool = False       # bad lines without --skip-bad-lines: nothing is written

    def as_json(self) -> dict:
        return {"written": len(self.written), "held": len(self.held), "updated": len(self.updated),
                "unchanged": len(self.unchanged), "rejected_lines": [{"line": n, "error": e} for n, e in self.rejected],
                "held_ids": self.held}

    def refusal(self) -> BadInput:
        line, error = self.rejected[0]
        more = len(self.rejected) - 1
        extra = f" (and {more} more bad line{'s' if more != 1 else ''})" if more else ""
        return BadInput(f"{self.feed} line {line}: {error}{extra}; nothing was written "
                        "(fix the line, or pass --skip-bad-lines to write the others)")


# The largest feed one ingest takes. A feed is checked, planned and written as one batch (all
# or nothing), so it sits in memory whole, parsed: several times its size. Past this, split it.
MAX_FEED_BYTES = 1 << 30


def read_feed(path: Path) -> list[tuple[int, dict | str]]:
    """(line number, entry object or the reason the line is bad) for each non-empty line."""
    data = _feed_bytes(path)
    out: list[tuple[int, dict | str]] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            out.append((number, parse_line(raw)))
        except jsonsafe.TooManyDigits as exc:    # JSON, and an object: not "not a JSON object"
            out.append((number, f"it {exc}"))
        except (ValueError, UnicodeDecodeError) as exc:
            said = str(exc)     # parse_line's own words for JSON that is no object: not twice
            out.append((number, said if said.startswith("not a JSON object") else
                        f"not a JSON object ({said})"))
    return out


def _feed_bytes(path: Path) -> bytes:
    """The feed's bytes: a regular file or a pipe (`/dev/stdin`, `<(…)`) of at most
    MAX_FEED_BYTES. A device (/dev/urandom never ends, a terminal waits for typing), a
    directory or a socket is refused before anything is read."""
    try:
        st = os.stat(path)
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise BadInput(f"feed {path} is not a regular file or a pipe (a device, a directory "
                           "or a socket): write the entries to a file and ingest that; nothing "
                           "was written")
        if st.st_size > MAX_FEED_BYTES:
            raise _too_big(path, f"{st.st_size / (1 << 30):.1f} GiB")
        with open(path, "rb") as f:
            data = f.read(MAX_FEED_BYTES + 1)
    except OSError as exc:
        raise BadInput(f"cannot read feed {path}: {exc.strerror}") from None
    if len(data) > MAX_FEED_BYTES:        # a pipe that goes on, or a file that grew
        raise _too_big(path, "more than 1 GiB")
    return data


def _too_big(path: Path, size: str) -> BadInput:
    return BadInput(f"feed {path} is {size}; one ingest takes at most 1 GiB (the whole feed is "
                    f"checked and written as one batch, in memory): split it (`split -l 500000 "
                    f"{shell_path(path)} part-`) and ingest each part; nothing was written")


class _Planner:
    """Turns feed lines into event drafts against the loaded store, line by line."""

    def __init__(self, store: Store, actor: str, ids: list[str]):
        self.store, self.actor = store, actor
        # id -> state: the stored states of the feed's ids, then each as this feed leaves it
        self.current: dict[str, dict | None] = dict.fromkeys(ids)
        rows = store.con.execute(sql("entry_states_of"), {"ids": ids}).fetchall()
        self.current.update((memory_id, jsonsafe.loads_stored(state)) for memory_id, state in rows)
        rows = store.con.execute(sql("suppressed_subjects")).fetchall()
        self.suppression = gate.Suppression({(salt, digest) for salt, digest in rows})
        self.policy = policy.load(store.paths)
        self.judged: batch.Judged | None = None

    def prejudge(self, lines: list[dict]) -> None:
        """Ask the gate's text questions of the whole feed at once (on every core for a large
        feed): each line as it would merge over the stored state. Only a cache: a text it
        misses (an id the feed writes twice) is asked when its line is judged."""
        self.judged = batch.judge(*gate.batch_texts(
            merged(self.current.get(memory_id) if isinstance(memory_id, str) else None, line)
            for line in lines for memory_id in (line.get("id"),)))

    def draft(self, line: dict) -> tuple[dict | None, str]:
        """(event draft or None when nothing would change, "write" | "update"); ValueError
        names what is wrong."""
        memory_id = line.get("id")
        if not isinstance(memory_id, str) or not memory_id:
            raise ValueError('field "id" must be a non-empty string')
        before = self.current[memory_id]
        if before is not None and before.get("status") == "erased":
            raise ValueError(f"id {memory_id} was erased; an erased id is never reused")
        admitted = admit(before, line, self.suppression, self.actor, key_policy=self.policy,
                         judged=self.judged)
        if admitted.draft is not None:
            self.current[memory_id] = admitted.draft["body"]["after"]
        return admitted.draft, admitted.kind


def _hold_unsupported(store: Store, drafts: list[dict]) -> None:
    """Hold the feed's summaries that the belief rule would not support (§2.3)."""
    summaries = {d["memory_id"]: d for d in drafts
                 if d["body"]["after"]["kind"] == "summary" and d["op"] != "hold"}
    if not summaries:
        return
    with store.what_if(drafts):          # `support` too is rolled back with the drafts
        tk = now_utc()
        stepwise.materialize(store.con, tk, at_head(store.con, tk))
        rows = store.con.execute(sql("unsupported_among"), {"ids": list(summaries)}).fetchall()
    for (memory_id,) in rows:
        draft = summaries[memory_id]
        draft["op"] = "hold"
        draft["body"]["after"].update(status="held", held_reason=gate.UNSUPPORTED)
        draft["body"]["reason"] = (f"{gate.UNSUPPORTED}: a summary that what it cites does not "
                                   "support (see `inspector show` for its rivals and lineage)")


def plan_feed(store: Store, feed: list[tuple[int, dict | str]], actor: str,
              result: IngestResult) -> list[dict]:
    ids = list(dict.fromkeys(line["id"] for _, line in feed
                             if isinstance(line, dict) and isinstance(line.get("id"), str)))
    planner = _Planner(store, actor, ids)
    planner.prejudge([line for _, line in feed if isinstance(line, dict)])
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
        if draft is None:
            result.unchanged.append(line["id"])
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
    named = personal_data_in(actor)
    if named is not None:       # the envelope outlives every erasure (format.md): no person in it
        raise BadInput(f"--actor {actor!r} holds personal data ({named}): the actor stays in the "
                       "log after every erasure; use an opaque identifier (e.g. agent:427)")
    feed = read_feed(feed_path)
    store = Store(paths.root, warn=True)
    # Planned first without the lock: a refused feed takes no lock and writes nothing, not even
    # the lock file. Under the lock, a log that changed since is planned again.
    planned_on = (store.generation, store.state.seq, store.state.hash)
    result, drafts = _plan(store, feed, actor, feed_path, skip_bad_lines)
    if result.refused:
        return result
    with LogWriter(paths) as writer:
        store.refresh()
        if (store.generation, store.state.seq, store.state.hash) != planned_on:
            result, drafts = _plan(store, feed, actor, feed_path, skip_bad_lines)
            if result.refused:
                return result
        writer.append(drafts)
    return result


def _plan(store: Store, feed: list, actor: str, feed_path: Path,
          skip_bad_lines: bool) -> tuple[IngestResult, list[dict]]:
    result = IngestResult(feed=str(feed_path))
    drafts = plan_feed(store, feed, actor, result)
    if result.rejected and not skip_bad_lines:
        result.written, result.held, result.updated, result.unchanged = [], {}, [], []
        result.refused = True
    return result, drafts
