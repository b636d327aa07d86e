"""The belief snapshot: the belief view a TUI built, left in `<store>/.inspector/beliefs.duckdb`
so that the next launch starts from it instead of judging every entry again.

Judging the whole store is what a launch waits for (12 s on a million events with long values
and hot keys; the persistent view makes reading the log itself a matter of milliseconds). The
snapshot holds `beliefs` as materialized for one context, in a store loaded with
one scope, at one knowledge time (valid time the same), from the log up to one line. A launch
takes the table and brings it to now with the live path's own patch (beliefs.patch): only
the keys of entries changed by the lines appended since, of entries whose times fall between
the two moments, and of everything resting on them are judged again; the result equals a
rebuild, and a patch too big for that is a rebuild.

Derived, never trusted, as the view is (view.py): the file records the code that wrote it, the
log (device, inode, byte offset, the seq and hash of the line ending there), the scope, the
context and the moment. It is used only when all of these hold for the running code and the log
as loaded; anything else means the view is built whole, as without a snapshot. Written under a
temp name and renamed under the store's lock only while the log is the one it was built from;
covered by erasure with the rest of `.inspector/` and discarded with the view when
`audit --verify` finds the log tampered with.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .engine import duckdb
from . import view
from .logfile import StorePaths
from .queries import sql

FORMAT = 2      # 2: `beliefs` alone (1 held `judged` too, every entry's value among it)
WRITE = ("snapshot_write_beliefs", "snapshot_meta_create")
TAKE = ("snapshot_take_beliefs",)


@dataclass(frozen=True)
class Taken:
    """What a snapshot was built for: its knowledge time and the last line it had read."""

    tk: datetime
    seq: int


def path(paths: StorePaths) -> Path:
    return paths.cache / view.SNAPSHOT_NAME


def save(con: duckdb.DuckDBPyConnection, paths: StorePaths, mark: view.Mark, scope: str | None,
         context: str | None, tk: datetime) -> bool:
    """Write `beliefs` (materialized for `context` at tk, the valid time the same,
    from the log up to `mark`, in a store loaded with `scope`) as the snapshot. Never waits for
    the lock and never fails the caller: returns whether a snapshot was put in place."""
    def fill() -> None:
        for name in WRITE:
            con.execute(sql(name))
        con.execute(sql("snapshot_meta_write"), {
            "format": FORMAT, "code": view.code_digest(), "dev": mark.dev, "ino": mark.ino,
            "offset": mark.offset, "seq": mark.seq, "hash": mark.hash, "line": mark.line,
            "scope": scope, "context": context, "tk": tk.isoformat()})
    return view.write_derived(con, paths, view.SNAPSHOT_NAME, "snapshot_target", mark, fill)


def take(con: duckdb.DuckDBPyConnection, paths: StorePaths, loaded: view.Mark,
         scope: str | None, context: str | None) -> Taken | None:
    """Replace `beliefs` by the snapshot's when it was written by this code, for
    this scope and context, from a prefix of the log as loaded (`loaded`: where the store's
    tables stand) that the log still holds; return what it was built for, or None (nothing
    taken: the tables are as they were)."""
    file = path(paths)
    if not view.trusted(paths, file):
        return None
    try:
        con.execute(f"ATTACH '{view.quoted(file)}' AS snapshot_source (READ_ONLY)")
    except duckdb.Error:
        return None
    try:
        row = con.execute(sql("snapshot_meta_read")).fetchone()
        if row is None:
            return None
        fmt, code, dev, ino, offset, seq, hash_, line, its_scope, its_context, tk = row
        mark = view.Mark(dev, ino, offset, seq, hash_, True, 0, line)
        if (fmt, code, its_scope, its_context) != (FORMAT, view.code_digest(), scope, context) \
                or (dev, ino) != (loaded.dev, loaded.ino) or offset > loaded.offset \
                or seq > loaded.seq or view.proven(paths, mark) is not None:
            return None
        con.execute("BEGIN")
        try:
            for name in TAKE:
                con.execute(sql(name))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        return Taken(datetime.fromisoformat(tk), seq)
    except (duckdb.Error, ValueError, TypeError, OSError):
        return None
    finally:
        con.execute("DETACH DATABASE IF EXISTS snapshot_source")
