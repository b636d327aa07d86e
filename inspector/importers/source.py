"""Opening a foreign SQLite file read-only without creating anything beside it.

A `mode=ro` open of a WAL-mode file creates `-shm` and `-wal` beside it when they are missing,
and fails with "unable to open database file" where it cannot (read-only media, a directory
the importing account may not write). So a WAL-mode file is opened by what lies beside it:

- `-wal` and `-shm` both there: a program may have the file open now; a `mode=ro` open joins
  its locking through them and creates nothing.
- no `-wal` with content: the file alone is the whole database. It is opened `immutable=1`,
  which reads it with no locks and no side files; that is safe only while nothing writes it,
  so the file (and the absence of a `-wal`) is checked unchanged once everything is read.
- a `-wal` with content but no `-shm` (its writer was killed), or an open through both that
  fails on read-only media: committed transactions may be only in the `-wal`, which
  `immutable=1` would silently ignore, so the file and its `-wal` are copied into a private
  temporary directory and read there, and checked unchanged by the copy.

A file in rollback-journal mode is opened `mode=ro`, which creates nothing beside it.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

from ..store.errors import BadInput
from .staging import COPY_PREFIX, lock_copy_dir, stops_as_errors, sweep_copies

SQLITE_MAGIC = b"SQLite format 3\x00"
WAL_VERSIONS = b"\x02\x02"       # header bytes 18-19, the read and write versions, in WAL mode


@contextmanager
def reading(path: Path, expected: str) -> Iterator[sqlite3.Connection]:
    """`path` opened read-only, with nothing created beside it; BadInput naming what the file
    is when it is not SQLite, why it cannot be read, or that it changed while being read."""
    wal = _sqlite_header(path, expected)[18:20] == WAL_VERSIONS
    side = {suffix: Path(f"{path}{suffix}") for suffix in ("-wal", "-shm")}
    if not wal:
        with _open(path, "mode=ro", path, expected) as con:
            yield con
    elif side["-wal"].exists() and side["-shm"].exists():
        try:
            con = _connect(path, "mode=ro")
        except sqlite3.Error:        # read-only media: the -shm cannot be used in place
            con = None
        if con is None:
            with _copied(path, side["-wal"], expected) as con:
                yield con
        else:
            try:
                yield con
            finally:
                con.close()
    elif _size(side["-wal"]):
        with _copied(path, side["-wal"], expected) as con:
            yield con
    else:
        before = _signature(path)
        with _open(path, "mode=ro&immutable=1", path, expected) as con:
            yield con
        _unchanged(path, before)


def _sqlite_header(path: Path, expected: str) -> bytes:
    if not path.is_file():
        raise BadInput(f"{path}: not found or not a file; expected {expected}")
    try:
        with open(path, "rb") as handle:
            head = handle.read(100)
    except OSError as exc:
        raise BadInput(f"{path}: cannot read it ({exc.strerror}); expected {expected}") from None
    if head and not head.startswith(SQLITE_MAGIC):
        raise BadInput(f"{path} is not a SQLite database (it starts with {head[:8]!r}); "
                       f"expected {expected}")
    return head


@contextmanager
def _open(file: Path, query: str, path: Path, expected: str) -> Iterator[sqlite3.Connection]:
    """`file` opened with the URI `query`; errors name `path`, the file the user gave."""
    try:
        con = _connect(file, query)
    except sqlite3.Error as exc:
        raise BadInput(f"{path}: SQLite cannot read it ({exc}); expected {expected}") from None
    try:
        yield con
    finally:
        con.close()


def _connect(file: Path, query: str) -> sqlite3.Connection:
    con = sqlite3.connect(f"file:{quote(str(file.resolve()))}?{query}", uri=True)
    try:
        con.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.Error:
        con.close()
        raise
    return con


@contextmanager
def _copied(path: Path, wal: Path, expected: str) -> Iterator[sqlite3.Connection]:
    """`path` and its `-wal`, copied into a private directory (0700) and opened there; the
    copy is removed after reading, also on SIGTERM or SIGHUP, and the directory holds a lock
    meanwhile, so that one a SIGKILL left is removed by the next such import (sweep_copies)."""
    with stops_as_errors():
        sweep_copies(Path(tempfile.gettempdir()))
        try:
            private = Path(tempfile.mkdtemp(prefix=COPY_PREFIX))
        except OSError as exc:
            raise BadInput(_no_copy(path, exc)) from None
        lock = None
        try:
            try:
                lock = lock_copy_dir(private)
            except OSError as exc:
                raise BadInput(_no_copy(path, exc)) from None
            copy = private / "source.db"
            before = _signature(path), _signature(wal)
            _copy(path, copy)
            _copy(wal, Path(f"{copy}-wal"))
            if (_signature(path), _signature(wal)) != before:
                raise _changed(path)
            with _open(copy, "mode=ro", path, expected) as con:
                yield con
        finally:
            shutil.rmtree(private, ignore_errors=True)
            if lock is not None:
                os.close(lock)


def _copy(source: Path, copy: Path) -> None:
    try:
        reader = open(source, "rb")
    except OSError as exc:
        raise BadInput(f"{source}: cannot read it ({exc.strerror})") from None
    with reader:
        try:
            with open(copy, "xb") as writer:
                shutil.copyfileobj(reader, writer)
        except OSError as exc:
            raise BadInput(_no_copy(source, exc)) from None


def _no_copy(path: Path, exc: OSError) -> str:
    return (f"{path} has a write-ahead log that SQLite can read only by creating files beside "
            f"it, so it is read from a private copy, which cannot be made in "
            f"{tempfile.gettempdir()} ({exc.strerror}): set TMPDIR to a directory you can "
            "write that has room for it")


def _size(file: Path) -> int:
    try:
        return file.stat().st_size
    except FileNotFoundError:
        return 0


def _signature(file: Path) -> tuple | None:
    """What changes when a file is written (its mtime alone has a coarse clock)."""
    try:
        st = file.stat()
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _unchanged(path: Path, before: tuple | None) -> None:
    """BadInput when a file read `immutable=1` was written meanwhile, or a writer has put
    transactions in a `-wal` beside it (a checkpoint would then rewrite the file)."""
    if _signature(path) != before or _size(Path(f"{path}-wal")):
        raise _changed(path)


def _changed(path: Path) -> BadInput:
    return BadInput(f"{path} changed while it was being read (another program is writing it); "
                    "nothing was written: stop that program, or import a copy of the file, "
                    "and try again")
