"""What the Overview screen draws (DESIGN §9): the store over time — events per time bucket by
op and by source class — the held queue's size and oldest hold, quarantined entries by source,
and findings by severity.

The events are counted once per load, per (bucket, op, source class), and then brought up to
date with only the events appended since (`seq > counted`): a write does not rescan a
5M-event log. Buckets are multiples of one another (LADDER) and aligned on the epoch, so the
counts of a fine bucket add up exactly into any coarser one: the screen draws as many columns
as it has room for, and a log that grows past the buckets kept is merged, never rescanned.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..store.model import SOURCE_CLASSES
from ..store.queries import sql

# Seconds a bucket spans: each a multiple of the one before (1s … 364 days).
LADDER = (1, 5, 10, 30, 60, 300, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400,
          7 * 86400, 28 * 86400, 364 * 86400)
MAX_BUCKETS = 480          # buckets kept: enough for the widest terminal's columns
# The source classes differ in their first letter, so the count groups on that letter (far
# cheaper than cutting every source at its colon) and the class is read back from it here.
CLASS_OF_LETTER = {name[0]: name for name in SOURCE_CLASSES}
assert len(CLASS_OF_LETTER) == len(SOURCE_CLASSES), "source classes must differ in their first letter"
NO_SOURCE = "(none)"
QUARANTINE_SOURCES = 12    # sources the quarantine chart names   # erase events and erased bodies keep no source


def source_class(letter: str | None) -> str:
    if letter is None:
        return NO_SOURCE
    return CLASS_OF_LETTER.get(letter, "other")


def step_for(first: int, last: int, buckets: int = MAX_BUCKETS) -> int:
    """The finest step of the ladder that covers epoch seconds first..last in `buckets`."""
    for step in LADDER:
        if last // step - first // step < buckets:
            return step
    return LADDER[-1]


@dataclass
class EventCounts:
    """Events per (bucket, op, source class letter), counted up to seq `seq`."""

    step: int
    seq: int
    generation: int
    cells: Counter = field(default_factory=Counter)

    def add(self, rows, step: int) -> None:
        """Rows (bucket at `step`, op, letter, n) counted into the cells (re-bucketed to
        this step, which is never finer than theirs)."""
        for bucket, op, letter, n in rows:
            self.cells[(bucket * step // self.step, op, letter)] += n

    def coarsen(self, step: int) -> None:
        if step == self.step:
            return
        merged: Counter = Counter()
        for (bucket, op, letter), n in self.cells.items():
            merged[(bucket * self.step // step, op, letter)] += n
        self.cells, self.step = merged, step

    def span(self) -> tuple[int, int] | None:
        """The first and last bucket holding an event."""
        buckets = [b for b, _, _ in self.cells]
        return (min(buckets), max(buckets)) if buckets else None


def count_events(cur, counts: EventCounts | None, generation: int, head: int) -> EventCounts:
    """`counts` brought up to seq `head` (a new count when there is none or the store was
    loaded again)."""
    if counts is None or counts.generation != generation or counts.seq > head:
        first, last = cur.execute(sql("tui_overview_span")).fetchone()
        if first is None:
            return EventCounts(LADDER[0], head, generation)
        step = step_for(int(first), int(last))
        counts = EventCounts(step, 0, generation)
    else:
        step = counts.step
    if head > counts.seq:
        rows = cur.execute(sql("tui_overview_events"), {"step": step, "after": counts.seq}).fetchall()
        counts.add(rows, step)
        counts.seq = head
        span = counts.span()
        if span is not None and span[1] - span[0] >= MAX_BUCKETS:
            counts.coarsen(step_for(span[0] * counts.step, span[1] * counts.step))
    return counts


@dataclass
class Series:
    """One row of a chart: its name and the events in each column."""

    name: str
    counts: list[int]

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclass
class Timeline:
    """The events drawn in `columns` buckets of `step` seconds from `start` (epoch seconds)."""

    start: int
    step: int
    columns: int
    by_op: list[Series]
    by_class: list[Series]

    @property
    def end(self) -> int:
        return self.start + self.step * self.columns


OP_ORDER = ("write", "update", "hold", "approve", "reject", "quarantine", "release", "retract",
            "expire", "revert", "erase")


def timeline(counts: EventCounts, width: int) -> Timeline | None:
    """The counts in at most `width` columns, at the finest ladder step that fits."""
    span = counts.span()
    if span is None:
        return None
    first, last = span[0] * counts.step, span[1] * counts.step
    step = next((s for s in LADDER if s >= counts.step and last // s - first // s < max(1, width)),
                LADDER[-1])
    start = first // step
    columns = last // step - start + 1
    by_op: dict[str, list[int]] = {}
    by_class: dict[str, list[int]] = {}
    for (bucket, op, letter), n in counts.cells.items():
        column = bucket * counts.step // step - start
        by_op.setdefault(op, [0] * columns)[column] += n
        by_class.setdefault(source_class(letter), [0] * columns)[column] += n
    ops = sorted(by_op, key=lambda o: (OP_ORDER.index(o) if o in OP_ORDER else len(OP_ORDER), o))
    classes = sorted(by_class, key=lambda c: (-sum(by_class[c]), c))
    return Timeline(start * step, step, columns, [Series(o, by_op[o]) for o in ops],
                    [Series(c, by_class[c]) for c in classes])


@dataclass
class Overview:
    """Everything the Overview screen shows, read in one worker."""

    counts: EventCounts
    held: int
    oldest_held_at: datetime | None
    oldest_held_id: str | None
    quarantined: int
    quarantined_by_source: list[tuple[str | None, int]]
    findings: dict[str, int] | None = None       # severity -> findings (None: not scanned yet)
    findings_behind: int | None = None           # session.findings_behind() as they were read


def read_overview(cur, counts: EventCounts | None, generation: int, head: int) -> Overview:
    counts = count_events(cur, counts, generation, head)
    held, oldest_at, oldest_id = cur.execute(sql("tui_overview_held")).fetchone()
    by_source = cur.execute(sql("tui_overview_quarantined")).fetchall()
    quarantined = sum(n for _, n in by_source)
    return Overview(counts, held, oldest_at, oldest_id, quarantined, by_source[:QUARANTINE_SOURCES])


def stale_words(behind: int) -> str:
    """What a scan older than the log has not read (session.findings_behind)."""
    if behind == 0:
        return "stale: the log was read again since this scan"
    return f"stale: {behind:,} event{'' if behind == 1 else 's'} since this scan"


def age(since: datetime, now: datetime | None = None) -> str:
    """How long ago, in its two largest units: 3h 52m, 2d 4h, 1y 3mo."""
    now = now or datetime.now(timezone.utc)
    seconds = max(0, int((now - since).total_seconds()))
    units = (("y", 365 * 86400), ("mo", 30 * 86400), ("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
    for i, (name, size) in enumerate(units):
        if seconds >= size or name == "s":
            text = f"{seconds // size}{name}"
            if i + 1 < len(units):
                smaller, small = units[i + 1]
                if seconds % size // small:
                    text += f" {seconds % size // small}{smaller}"
            return text
    return ""
