"""The belief view (DESIGN §3): what the inspector's rule picks for each key, and why.

A view is materialized a range of keys at a time through two tables: `judged` (the range's
keyed entries as of the knowledge time, with support and effective authority) and `beliefs`
(the winners, position-numbered), which later queries page and join. `judged` is scratch: it
holds one range (or the keys one answer or patch judges), never the whole store, whose every
value it would hold (5.5 GB of TUI at 5M events of long values, when it was kept whole).
Times are knowledge time tk and valid time tv.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Iterator

from .engine import duckdb
from . import jsonsafe, lean, macros, stepwise
from .connection import id_lists
from .model import format_time, now_utc
from .queries import sql

RULE_NOTE = ("by the inspector's belief rule (see docs/cli.md, `beliefs`), which need not be "
             "what the agent itself believed")
# A plan judges "now" a moment ahead, so that the events it stages (stamped now) are known.
SETTLE = timedelta(seconds=2)
MARKER_IDS = {"contested": "contested_ids", "claim_disagrees": "claim_ids",
              "inference_disagrees": "inference_ids", "vetoed_newer": "vetoed_ids"}


@dataclass(frozen=True)
class Moment:
    """Knowledge time tk and valid time tv: `--as-of` sets both unless `--valid-at` is given."""

    tk: datetime
    tv: datetime
    as_of_given: bool = False

    @classmethod
    def resolve(cls, as_of: datetime | None = None, valid_at: datetime | None = None) -> "Moment":
        now = now_utc()
        tk = as_of or now
        return cls(tk=tk, tv=valid_at or tk, as_of_given=as_of is not None)


@dataclass(frozen=True)
class ViewSpec:
    """What a belief table answers: a context (None: every scope) at a moment."""

    context: str | None
    moment: Moment


def materialize(con: duckdb.DuckDBPyConnection, spec: ViewSpec) -> int:
    """Build `beliefs` for the view (`judged` is left empty); return the row count.
    A range of keys at a time, each committed on its own, with DuckDB's memory capped at what
    its tables hold plus KEEP_ROOM (in_ranges), so that the blocks of the view a range read
    are let go as the next reads. Not one transaction: that held every range's `judged`
    (each range replaces it) until its end. On the 1M-event wide-long bench store the build
    peaked at 2.0 GB that way. A failure leaves `beliefs` partial, and the caller that keeps
    it (the TUI session) builds it again."""
    for _ in in_ranges(con, spec, keep=True, cap=KEEP_ROOM):
        pass
    return con.execute(sql("beliefs_count")).fetchone()[0]


def judge_keys(con: duckdb.DuckDBPyConnection, tk: datetime, keys: list[tuple[str, str]],
               private: bool = False) -> None:
    """Materialize `judged` as of tk for `keys` only: their entries and what those rest on,
    judged exactly as the whole store's `judged` would judge them (a per-key answer on a big
    store without judging every entry). Leaves the keys in focus_keys. `private`: in con's
    own TEMP tables of those names, which hide the shared ones from con alone (a reader
    beside threads that write the shared ones; they go with con's transaction or con)."""
    if private:
        con.execute(sql("focus_keys_private"))
        con.execute(sql("focus_ids_private"))
    con.execute(sql("focus_keys_clear"))
    con.execute(sql("focus_keys_fill"), {"entities": [k[0] for k in keys],
                                         "attributes": [k[1] for k in keys]})
    with id_lists(con):
        _fill_focus_ids(con, private=private)
        con.execute(sql("judged_materialize_focus_private" if private
                        else "judged_materialize_focus"), {"tk": tk})


def focus_keys_of(con: duckdb.DuckDBPyConnection, ids: list[str]) -> None:
    """focus_keys := the keys of `ids` and of every entry resting on them."""
    update_cites(con)
    con.execute(sql("focus_keys_clear"))
    con.execute(sql("focus_keys_of_ids"), {"ids": ids})


def update_cites(con: duckdb.DuckDBPyConnection) -> None:
    """version_cites (the citations of every loaded version, which the walks up and down the
    justifications read) brought up to the loaded versions; the caller holds the store's lock."""
    con.execute(sql("cites_update"))
    con.execute(sql("cites_update_seq"))


def _fill_focus_ids(con: duckdb.DuckDBPyConnection, cited: bool = False,
                    private: bool = False) -> None:
    """The entries judging the focus keys needs (their own and what they rest on), and their
    versions (focus_version_rows, in con's own TEMP table if `private`); `cited`: walk
    version_cites (up to date: a patch), else every version's justification (a reader that
    must not write shared tables)."""
    con.execute(sql("focus_ids_clear"))
    con.execute(sql("focus_ids_fill_cited" if cited else "focus_ids_fill"))
    if private:
        con.execute(sql("focus_version_rows_private"))
    else:
        con.execute(sql("focus_version_rows_clear"))
        con.execute(sql("focus_version_rows_fill"))


# A patch touching more keys than this rebuilds the view instead (as fast, and simpler).
PATCH_MAX_KEYS = 20_000
# After the focus keys' new rows (patch_rows): the plan of what moves, then the table patched
# in place (the rows of other keys keep their place or move by a shift; nothing is copied).
# The plan (patch_plan, patch_shift) stays for the TUI, whose Beliefs rows move the same way.
PATCH_STATEMENTS = ("beliefs_patch_plan", "patch_shift_ranges", "beliefs_patch_forget")


@dataclass(frozen=True)
class Shift:
    """How the rows of a position-numbered table move after a patch: `moves` gives the ranges
    of old positions that move, (lo, hi, shift) in position order; `by_range` moves one
    ($lo, $hi, $shift), `whole` all at once."""

    moves: str
    by_range: str
    whole: str


BELIEF_SHIFT = Shift("patch_shift_moves", "beliefs_shift_range", "beliefs_patch_shift")
# A range moved with constant bounds reads only the row groups it moves (the min-max index),
# a few ms a statement beside the rows it moves; the one statement over every range (a range
# join) took 0.19 s for 100 new keys at 1M events, 0.56 s at 5M. Past this many ranges, that
# statement.
SHIFT_RANGES_MAX = 256


def shift(con: duckdb.DuckDBPyConnection, how: Shift) -> None:
    """Move the rows between the focus keys by the plan's shifts, a range at a time. Rows
    keep their order, so a range moved up lands below the next range's new place, and above
    it when moved down: the ranges moving up go from the last, then those moving down from
    the first, and no range's bounds take in a row another range moved."""
    moves: list[list[int]] = []
    for lo, hi, by in con.execute(sql(how.moves)).fetchall():
        if moves and moves[-1][1] == lo and moves[-1][2] == by:
            moves[-1][1] = hi                    # next to the last, moving as far: one range
        else:
            moves.append([lo, hi, by])
    if len(moves) > SHIFT_RANGES_MAX:
        con.execute(sql(how.whole))
        return
    for lo, hi, by in sorted(moves, key=lambda m: (m[2] < 0, -m[0] if m[2] > 0 else m[0])):
        con.execute(sql(how.by_range), {"lo": lo, "hi": hi, "shift": by})


def patch(con: duckdb.DuckDBPyConnection, spec: ViewSpec, since: datetime,
          changed: list[str]) -> int | None:
    """Bring `beliefs`, materialized for the same context at knowledge time `since`, to
    `spec`'s moment after the events of `changed` entries were loaded: only the keys of those
    entries, of entries whose times fall between the two moments, and of everything resting
    on them are judged again (`judged` is left holding those keys' entries). The belief table
    equals materialize(con, spec)'s.
    Returns the row count, or None (nothing changed) when a full rebuild is the better way."""
    with id_lists(con):
        return _patch(con, spec, since, changed)


def _patch(con: duckdb.DuckDBPyConnection, spec: ViewSpec, since: datetime,
           changed: list[str]) -> int | None:
    tk, tv = spec.moment.tk, spec.moment.tv
    if tv != tk or tk < since:
        return None
    crossing = [i for (i,) in con.execute(sql("changed_between"), {"since": since, "tk": tk}).fetchall()]
    con.execute("BEGIN")
    try:
        focus_keys_of(con, sorted({*changed, *crossing}))
        if con.execute(sql("focus_keys_count")).fetchone()[0] > PATCH_MAX_KEYS:
            con.execute("ROLLBACK")
            return None
        _fill_focus_ids(con, cited=True)
        con.execute(sql("judged_empty"))
        con.execute(sql("judged_patch_take"), {"tk": tk})
        con.execute(sql("beliefs_patch_rows"), {"tk": tk, "tv": tv, "ctx": spec.context})
        for name in PATCH_STATEMENTS:
            con.execute(sql(name))
        shift(con, BELIEF_SHIFT)
        con.execute(sql("beliefs_patch_take"))
        con.execute(sql("patch_rows_empty"))           # no copy of a value left behind
        con.execute(sql("focus_version_rows_clear"))
        count = con.execute(sql("beliefs_count")).fetchone()[0]
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return count


# Judged entries a range of the belief table is built from at most (about: a key is never
# split). Every key's rows depend on its own entries alone, so the table is built a range of
# keys at a time, in key order, each range's rows numbered after the last. The 5M-event bench
# store (500,569 judged entries): the whole table built in one piece peaked at 748 MB, in
# ranges of 100,000 at 559 MB; `beliefs --json` reading one range at a time (in_ranges with
# keep=False), 462 MB. With DuckDB 2.0 that grew to 467-488 MB (`conflicts` 469-494 MB), on
# the line of the 500 MB a warm command may take: a caller reading the rows as they come
# (keep=False) takes ranges half this size, which hold 414-421 MB (419 MB) for 7% more time
# (bench/bench_view.py 5m, 2026-12-04). The whole table kept (materialize, the TUI's) is
# built capped, in LEAN_PART_ENTRIES ranges: uncapped in ranges of this size, on the 5M-event
# wide-long store, the TUI's launch peaked at 5.5 GB (in one transaction), against 2.7-3.8 GB
# capped (stops 47-48, bench/tui_catchup.py; the peak varies between runs).
PART_ENTRIES = 100_000
# What building a whole belief table to keep (materialize, the TUI's) may take beyond the
# tables the connection holds, which grow with it.
KEEP_ROOM = lean.WHOLE_CAP
# Under a cap (in_ranges), ranges of 25,000. `beliefs --json` without printing, outside
# generator's 1M store (long values, hot keys in many scopes), cap 448 MB: ranges of 50,000
# needed more (one was built again uncapped) and peaked at 837 MB; 25,000: 570 MB in 18.5 s;
# 10,000: 551 MB in 22.7 s (each range reads the view again); uncapped: 873 MB in 16.6 s.
LEAN_PART_ENTRIES = 25_000
# A range under a cap is LEAN_SPLIT pieces of about LEAN_PART_ENTRIES // LEAN_SPLIT entries.
# A range whose working memory is over the cap (long values, many versions: at 5M events of
# the wide-long bench store, 12 to 18 of 68 ranges needed more than 256 MB) is built again a
# half at a time, each capped, and a half that still needs more a piece at a time (a piece
# still over it runs uncapped: time, never an answer). Before, the whole range ran uncapped
# and `conflicts` took 700+ MB; a cap of 320 MB that every range fitted took 504-525 MB.
LEAN_SPLIT = 4


def at_head(con: duckdb.DuckDBPyConnection, tk: datetime | None) -> bool:
    """Whether tk is at or after every event's time: the `now` the macros that judge the
    store take (macros.sql, state_at), decided here so that their plans read one source."""
    return con.execute(sql("at_head"), {"tk": tk}).fetchone()[0]


def in_ranges(con: duckdb.DuckDBPyConnection, spec: ViewSpec, keep: bool,
              cap: int | None = None) -> Iterator[None]:
    """Build `beliefs` a range of keys at a time, yielding after each range; `judged` holds
    the range's (or the last piece's) entries, and is empty at the end.
    keep: `beliefs` grows to the whole view (materialize); else each range replaces the one
    before (positions still count from the first range), so that a caller reading the rows
    as they come (a whole table printed) holds one range, and at the end it is emptied:
    nothing is left that looks like the whole view.
    cap (outside a transaction): DuckDB's memory is capped at `cap` bytes (with keep: at what
    the connection's tables hold plus `cap`, for they grow with the table, and a TUI holds
    its screens' rows beside it) while the support walk and each range are built, in ranges
    of LEAN_PART_ENTRIES, so that the blocks of the view they read are let go and a range's
    working memory stays small. A range that needs more is rolled back and built again a half
    at a time, down to LEAN_PART_ENTRIES // LEAN_SPLIT entries; the walk, or such a piece,
    that still needs more is built again without the cap (lean.built)."""
    tk = spec.moment.tk
    now = at_head(con, tk)
    params = {"tk": tk, "tv": spec.moment.tv, "ctx": spec.context}

    def room() -> int:
        held = con.execute(sql("memory_not_cached")).fetchone()[0] if keep else 0
        return held + cap

    walk = lambda: stepwise.materialize(con, tk, now)      # noqa: E731
    walk() if cap is None else lean.built(con, walk, room())
    if cap is not None:
        size, split = max(1, LEAN_PART_ENTRIES // LEAN_SPLIT), LEAN_SPLIT
    elif keep:
        size, split = PART_ENTRIES, 1
    else:
        size, split = max(1, PART_ENTRIES // 2), 1
    starts = con.execute(macros.sql(con, "judged_range_starts"),
                         {"tk": tk, "now": now, "size": size}).fetchall()
    add_range = macros.sql(con, "judged_add_range")     # its macros checked once, not per range
    pieces = list(zip([(None, None), *starts], [*starts, (None, None)]))
    before = 0

    def build(lo: tuple, hi: tuple, empty: bool) -> None:
        bounds = {"lo_entity": lo[0], "lo_attribute": lo[1], "hi_entity": hi[0],
                  "hi_attribute": hi[1]}
        con.execute(sql("judged_empty"))         # a range reads its own entries alone
        if empty:
            con.execute(sql("beliefs_empty"), params)
        con.execute(add_range, {"tk": tk, "now": now, **bounds})
        con.execute(sql("beliefs_add_range"), {**params, **bounds, "before": before})

    def build_capped(mine: list, empty: bool) -> None:
        """The pieces `mine` as one range under the cap; if it needs more, each half so, down
        to a piece, which runs uncapped if it still needs more (lean.capped)."""
        nonlocal before
        whole = lambda: build(mine[0][0], mine[-1][1], empty)   # noqa: E731
        if len(mine) == 1:
            lean.built(con, whole, room())
        elif not lean.fits(con, whole, room()):
            half = (len(mine) + 1) // 2
            build_capped(mine[:half], empty)
            before = con.execute(sql("beliefs_positions")).fetchone()[1] or before
            build_capped(mine[half:], False)

    for n in range(0, len(pieces), split):
        empty = n == 0 or not keep
        if cap is None:
            build(*pieces[n], empty)                 # split is 1: a range is a piece
        else:
            build_capped(pieces[n:n + split], empty)
        before = con.execute(sql("beliefs_positions")).fetchone()[1] or before
        yield
    con.execute(sql("judged_empty"))
    if not keep:
        con.execute(sql("beliefs_empty"), params)


def _rows(cursor) -> list[dict]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def json_value(text: str | None):
    """A JSON column as a Python value (SQL NULL and JSON null are both None)."""
    return None if text is None else jsonsafe.loads_stored(text)


def belief_json(row: dict) -> dict:
    """One belief row in the stable JSON shape of DESIGN §8."""
    return {"scope": row["scope"], "belief_scope": row["belief_scope"], "entity": row["entity"],
            "attribute": row["attribute"], "value": json_value(row["value"]),
            "memory_id": row["memory_id"], "kind": row["kind"], "source": row["source"],
            "authority": row["authority"], "observed_at": format_time(row["observed_at"]),
            "markers": list(row["markers"]), "candidates": row["candidates"],
            "overridden_in": list(row["overridden_in"])}


def page(con: duckdb.DuckDBPyConnection, first: int, last: int) -> list[dict]:
    """Rows first..last (1-based, inclusive) of the materialized belief table."""
    return _rows(con.execute(sql("beliefs_page"), {"first": first, "last": last}))


def all_beliefs(con: duckdb.DuckDBPyConnection) -> list[dict]:
    return page(con, 1, 2**62)


def each_belief(con: duckdb.DuckDBPyConnection, page_size: int = 5000) -> Iterator[dict]:
    """The materialized belief table's rows in order, a page at a time (a whole table of a
    large store as dicts at once held over a GB); the table may hold one range of in_ranges,
    whose positions start after the ranges before."""
    first = con.execute(sql("beliefs_positions")).fetchone()[0] or 1
    while rows := page(con, first, first + page_size - 1):
        yield from rows
        first += page_size


def each_belief_of(con: duckdb.DuckDBPyConnection, spec: ViewSpec,
                   cap: int | None = None) -> Iterator[dict]:
    """The rows materialize(con, spec) then each_belief(con) give, judged a range of keys at
    a time for a caller that reads them once: no table of the whole view is kept (cap:
    in_ranges)."""
    for _ in in_ranges(con, spec, keep=False, cap=cap):
        yield from each_belief(con)


def rivals(con: duckdb.DuckDBPyConnection, spec: ViewSpec, entity: str, attribute: str,
           context: str) -> list[dict]:
    """Every entry about the key, judged in `context`, with its reason (winner: 'belief')."""
    params = {"entity": entity, "attribute": attribute, "ctx": context,
              "tk": spec.moment.tk, "tv": spec.moment.tv}
    return _rows(con.execute(sql("rivals"), params))


def why(rows: list[dict]) -> str:
    """A sentence saying why the winner of a rivals() list wins, or that nothing does."""
    winner = next((r for r in rows if r["reason"] == "belief"), None)
    if winner is None:
        return "no candidate: nothing about this key is believed here"
    outranked = [r["reason"] for r in rows if r["reason"].startswith("outranked:")]
    n = len(outranked) + 1
    if not outranked:
        return "the only candidate"
    if all(r == "outranked:recency" for r in outranked):
        return f"newest of {n} candidates at authority {winner['authority']}"
    if "outranked:authority" in outranked and len(set(outranked)) == 1:
        return f"highest authority ({winner['authority']}) of {n} candidates"
    return (f"greatest (authority {winner['authority']}, scope depth, recency) of {n} candidates")


def conflicts(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Every marker of the materialized belief table with the ids that cause it."""
    return list(each_conflict(con))


def each_conflict(con: duckdb.DuckDBPyConnection, page_size: int = 5000) -> Iterator[dict]:
    """conflicts(), read a page at a time (a large store has tens of thousands)."""
    cursor = con.execute(sql("conflicts"))
    while rows := cursor.fetchmany(page_size):
        for scope, entity, attribute, marker, ids in rows:
            yield {"scope": scope, "entity": entity, "attribute": attribute, "marker": marker,
                   "memory_ids": list(ids)}


def each_conflict_of(con: duckdb.DuckDBPyConnection, spec: ViewSpec,
                     cap: int | None = None) -> Iterator[dict]:
    """each_conflict() of the view of spec, judged a range of keys at a time (each_belief_of)."""
    for _ in in_ranges(con, spec, keep=False, cap=cap):
        yield from each_conflict(con)
