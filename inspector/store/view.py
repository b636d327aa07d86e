"""The persistent view (DESIGN §2.5): the loaded tables kept in `<store>/.inspector/view.duckdb`.

A `Store` reads its tables through overlays: `versions` is the view file's `versions` plus the
rows of lines read since (`versions_new`); `entries` and `edges` are the file's rows of the
entries no later line touched plus the refreshed ones. So a command on a big store attaches the
file read-only, reads the lines appended since it was written, and answers.

Why a read-only DuckDB file replaced by rename (and not one database file opened read-write):
DuckDB lets one process at a time open a database file read-write, and a reader holding it
read-only keeps a writer out. A view file is therefore never written after it is published:
a new one is written beside it under a temp name, then renamed over it under the store's lock.
Readers that attached the old file keep reading their open file; the next command attaches
the new one. No command waits for another, and none fails because another holds the view.

Derived, never trusted. The file records the log it was read from (device, inode, byte
offset, the seq and hash of the line that ends there) and a digest of the code that loads
(its SQL, its Python, DuckDB's version). Before use, `proven()` checks all of that against
the log and the running code; any mismatch makes the store load the log again (and say why).
An in-place edit of a line already read is tampering: `audit --verify` finds it and calls
`discard()`. The view is covered by erasure: erasure and its recovery delete `.inspector/`,
and a view is only published while holding the store's lock and only when the log is still
the one it was read from, so a view of a log an erasure replaced is never put back.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import stat
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from .engine import duckdb
from . import jsonsafe, lean
from .files import DIR_MODE, FILE_MODE, fsync_dir, fsync_file, is_temp_of, temp_name
from .logfile import StorePaths, last_line
from .queries import sql, statements

VIEW_NAME = "view.duckdb"
SNAPSHOT_NAME = "beliefs.duckdb"      # snapshot.py: the belief view a TUI left
FORMAT = 2      # 2: the digest of the line at the mark (Mark.line)
# Statements writing a view file (attached as `target` while it is written).
WRITE = ("view_write_versions", "view_write_entries", "view_write_edges", "view_write_known_ids",
         "view_write_version_keys")
# What DuckDB may hold beyond the tables while it writes a view (publish): measured on 850k
# long-valued entries (bench/synth.py --long --wide, 1M events), the write of the entries
# peaked 1.2 GB lower than uncapped; half of this was too little (the write ran again uncapped).
WRITE_HEADROOM = 1 << 30
# The table read since the view that each write has copied (publish's release).
RELEASE = {"view_write_versions": "clear_versions", "view_write_entries": "clear_entries",
           "view_write_edges": "clear_edges", "view_write_version_keys": "clear_version_keys"}
INDEX = ("view_index_entries", "view_index_versions", "view_index_edges_src",
         "view_index_edges_dst", "view_index_version_keys")
# A reader that took this many lines since the view was written publishes a new one.
REPUBLISH_LINES = 20_000
# A log smaller than this is read whole (a few milliseconds): no view is written for it.
# INSPECTOR_VIEW_MIN_BYTES sets another size (0: always keep a view).
MIN_LOG_BYTES = 64 << 10


def min_log_bytes() -> int:
    try:
        return int(os.environ.get("INSPECTOR_VIEW_MIN_BYTES", MIN_LOG_BYTES))
    except ValueError:
        return MIN_LOG_BYTES
STALE_TEMP_SECONDS = 3600


@dataclass(frozen=True)
class Mark:
    """Where a view stands in its log."""

    dev: int
    ino: int
    offset: int            # bytes of complete lines read
    seq: int               # the seq of the line that ends at offset (0: none)
    hash: str | None       # and its hash
    chained: bool
    unchained: int
    line: str | None = None    # the SHA-256 of that line's bytes: an unchained line has no hash


def path(paths: StorePaths) -> Path:
    return paths.cache / VIEW_NAME


def line_digest(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


@lru_cache(maxsize=1)
def code_digest() -> str:
    """What decides how log lines become rows: the SQL, the core's Python, DuckDB's version."""
    h = hashlib.sha256(f"{FORMAT}:{duckdb.__version__}".encode())
    for name, text in sorted(statements().items()):
        h.update(f"{name}\0{text}\0".encode())
    for source in sorted(Path(__file__).resolve().parent.glob("*.py")):
        h.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return h.hexdigest()


def usable_dir(paths: StorePaths) -> bool:
    """`.inspector` is a real directory (never a link: the view holds personal data)."""
    try:
        return stat.S_ISDIR(os.lstat(paths.cache).st_mode)
    except FileNotFoundError:
        return False


def trusted(paths: StorePaths, file: Path) -> bool:
    """Whether `file` under `.inspector` may be read as derived from the log (distrust)."""
    return distrust(paths, file) is None


def distrust(paths: StorePaths, file: Path) -> str | None:
    """None when `file` under `.inspector` may be read as derived from the log: the store is
    one no other account can write to, `.inspector` is a real directory of this account's
    that no one else can enter, and the file is this account's own regular file. Else why not
    ("" when there is no such file). Anything else (a view planted in a world-writable store,
    one another account wrote) is never read: the log is read whole, as docs/format.md says."""
    try:
        root, cache, st = os.stat(paths.root), os.lstat(paths.cache), os.lstat(file)
    except OSError:
        return ""
    uid = os.geteuid()
    if stat.S_IMODE(root.st_mode) & 0o022:
        return f"others can write to the store directory (mode {oct(stat.S_IMODE(root.st_mode))}), " \
            f"so its view is not used: run chmod go-w {paths.root}"
    if not stat.S_ISDIR(cache.st_mode) or stat.S_IMODE(cache.st_mode) & 0o077 or cache.st_uid != uid:
        return f"{paths.cache} is not a private directory of this account's, so the view in it " \
            "is not used"
    if not stat.S_ISREG(st.st_mode) or st.st_uid != uid:
        return f"{file} is not this account's own file, so it is not used"
    return None


def attach(con: duckdb.DuckDBPyConnection, paths: StorePaths) -> Mark | str:
    """Attach the view file read-only as `base` when it is there and proven current for the
    log; return its Mark, or why it cannot be used ("" when there simply is none)."""
    file = path(paths)
    why = distrust(paths, file)
    if why is not None:
        return why
    try:
        con.execute(f"ATTACH '{quoted(file)}' AS base (READ_ONLY)")
    except duckdb.Error as exc:
        return f"the view could not be opened ({str(exc).splitlines()[0]})"
    try:
        row = con.execute(sql("view_meta_read")).fetchone()
        problem = "the view has no record of its log" if row is None else None
    except duckdb.Error:           # not the record this version writes
        row, problem = None, "the view was written by another version of the inspector"
    mark = None
    if row is not None:
        fmt, code, *fields = row
        mark = Mark(*fields)
        if fmt != FORMAT or code != code_digest():
            problem = "the view was written by another version of the inspector"
        else:
            problem = proven(paths, mark)
    if problem:
        con.execute("DETACH base")
        return problem
    return mark


def proven(paths: StorePaths, mark: Mark, reader: str = "the view") -> str | None:
    """None when the log is the one `reader` read, grown only by appends; else why not."""
    st = os.stat(paths.log)
    if (st.st_dev, st.st_ino) != (mark.dev, mark.ino):
        return "the log was replaced (an erasure, a restore or another copy)"
    if st.st_size < mark.offset:
        return f"the log is shorter than when {reader} read it (truncated or rolled back)"
    if mark.offset == 0:
        return None
    try:
        raw = last_line(paths.log, mark.offset)
        line = jsonsafe.loads(raw)
    except (ValueError, OSError):
        return f"the line ending at byte {mark.offset} of the log is not the one {reader} read"
    if not isinstance(line, dict) or line.get("seq") != mark.seq or line.get("hash") != mark.hash \
            or line_digest(raw) != mark.line:
        return (f"the line ending at byte {mark.offset} of the log no longer holds seq "
                f"{mark.seq} with the hash {reader} read (rewritten or rolled back)")
    return None


def publish(con: duckdb.DuckDBPyConnection, paths: StorePaths, mark: Mark,
            release: bool = False) -> bool:
    """Write the overlay tables (`all_*`) to a new view file and rename it into place, while
    holding the store's lock and only if the log is still the one `mark` describes. Never
    waits for the lock and never fails the command: returns whether a view was published.
    release: empty each table read since the view (`*_new`) once it is written, so that memory
    never holds a table and its written copy at once (on 850k long-valued entries that was
    1.5 GB more); the caller reads the store again, from the view or, when none was published,
    from the log."""
    def fill() -> None:
        for name in WRITE:
            # DuckDB keeps the blocks it writes cached up to its memory limit (80% of the
            # machine's): a cap over what the tables hold makes it let them go (lean.capped
            # runs the statement again uncapped if it needs more).
            used = con.execute(sql("memory_in_use")).fetchone()[0]
            lean.capped(con, lambda: con.execute(sql(name)), used + WRITE_HEADROOM)
            if release and name in RELEASE:
                con.execute(sql(RELEASE[name]))
        write_record(con, mark)
    return write_derived(con, paths, VIEW_NAME, "target", mark, fill)


def write_record(con: duckdb.DuckDBPyConnection, mark: Mark) -> None:
    """Into the view file attached as `target`, whose tables are written: the record of the log
    it was read from (`mark`) and the code that read it, and the indexes."""
    con.execute(sql("view_meta_create"))
    con.execute(sql("view_meta_write"), {
        "format": FORMAT, "code": code_digest(), "dev": mark.dev, "ino": mark.ino,
        "offset": mark.offset, "seq": mark.seq, "hash": mark.hash,
        "chained": mark.chained, "unchained": mark.unchained, "line": mark.line})
    for name in INDEX:
        con.execute(sql(name))


def write_derived(con: duckdb.DuckDBPyConnection, paths: StorePaths, name: str, alias: str,
                  mark: Mark, fill: Callable[[], None]) -> bool:
    """A derived file of `.inspector` (the view, the belief snapshot): a new DuckDB file under
    a temp name, attached as `alias` while `fill` writes it, then renamed to `name` under the
    store's lock if the log is still the one `mark` describes. Not for a log under
    min_log_bytes nor where the account may not write (`writable`); never fails the caller:
    returns whether the file was put in place, and leaves no temp file either way."""
    if mark.offset < min_log_bytes() or not writable(paths):
        return False
    temp = paths.cache / temp_name(name)
    try:
        clean_stale_temps(paths, name)
        con.execute(f"ATTACH '{quoted(temp)}' AS {alias}")
        try:
            os.chmod(temp, FILE_MODE)
            fill()
        finally:
            con.execute(f"DETACH {alias}")
        fsync_file(temp)
        return bool(rename_if_current(paths, temp, mark, paths.cache / name))
    except (duckdb.Error, OSError):
        return False
    finally:
        remove_temp(temp)


def remove_temp(temp: Path) -> None:
    """Delete a derived file being written under a temp name, and its write-ahead log."""
    for leftover in (temp, Path(f"{temp}.wal")):
        try:
            os.unlink(leftover)
        except OSError:
            pass


def discard(paths: StorePaths) -> OSError | None:
    """Delete the view file and the belief snapshot (a log found tampered with must not be
    answered from either). Returns the first error of a file that is there and could not be
    deleted (a read-only store), after trying every file; None when none is left."""
    if not usable_dir(paths):
        return None
    failed = None
    for name in (VIEW_NAME, VIEW_NAME + ".wal", SNAPSHOT_NAME, SNAPSHOT_NAME + ".wal"):
        try:
            os.unlink(paths.cache / name)
        except FileNotFoundError:
            pass
        except OSError as exc:
            failed = failed or exc
    return failed


def on_read_only_fs(paths: StorePaths) -> bool:
    """Whether the store lies on a read-only file system (a read-only mount of an evidence
    copy): no view can be kept there, and none deleted."""
    try:
        return bool(os.statvfs(paths.root).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def writable(paths: StorePaths) -> bool:
    """The view is written only by an account that may write the store, into a `.inspector`
    that is a real directory of the store's own, never into a group- or other-writable one."""
    try:
        root = os.stat(paths.root)
        if stat.S_IMODE(root.st_mode) & 0o022 or not os.access(paths.root, os.W_OK):
            return False
        if os.path.lexists(paths.lock) and os.path.islink(paths.lock):
            return False
        if not os.path.lexists(paths.cache):
            os.mkdir(paths.cache, DIR_MODE)
        st = os.lstat(paths.cache)
        return stat.S_ISDIR(st.st_mode) and not stat.S_IMODE(st.st_mode) & 0o077 \
            and st.st_uid == os.geteuid()
    except OSError:
        return False


def rename_if_current(paths: StorePaths, temp: Path, mark: Mark, target: Path) -> bool | None:
    """Rename `temp` over `target` under the store's lock, only if the log is still the one
    `mark` describes; never waits for the lock. Returns whether it renamed, or None when the
    lock was held by another process (a writer: the next command publishes)."""
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                 FILE_MODE)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return None             # a writer holds the store: the next command publishes
            raise
        try:
            if proven(paths, mark) is not None or not usable_dir(paths):
                return False            # the log changed under us (an erasure): never put back
            os.rename(temp, target)
            fsync_dir(paths.cache)
            return True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def clean_stale_temps(paths: StorePaths, name: str) -> None:
    """Temp files of a publish of `name` that crashed (an hour old: one in progress is younger)."""
    now = time.time()
    with os.scandir(paths.cache) as entries:
        for entry in entries:
            if is_temp_of(entry.name, name):
                try:
                    if now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_SECONDS:
                        os.unlink(entry.path)
                except OSError:
                    pass


def quoted(file: Path) -> str:
    return str(file).replace("'", "''")
