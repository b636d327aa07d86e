"""Edit a store's log in tests the way a crash, a bug or an attacker would."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path


def log_path(store: Path) -> Path:
    return Path(store) / "events.jsonl"


def read_lines(store: Path) -> list[bytes]:
    data = log_path(store).read_bytes()
    assert data.endswith(b"\n")
    return data[:-1].split(b"\n")


def write_lines(store: Path, lines: list[bytes], newline_at_end: bool = True) -> None:
    log_path(store).write_bytes(b"\n".join(lines) + (b"\n" if newline_at_end else b""))


def edit_line(store: Path, seq: int, change) -> None:
    """Parse line `seq`, let `change(event)` edit it, write it back canonically."""
    lines = read_lines(store)
    event = json.loads(lines[seq - 1])
    change(event)
    lines[seq - 1] = json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    write_lines(store, lines)


def readable_bytes(path: Path) -> bytes:
    """What a file holds, as a search for residue must see it: a DuckDB file's rows decoded
    (its pages compress strings, so a byte search alone could miss a value), else its bytes."""
    data = Path(path).read_bytes()
    if not data[8:12] == b"DUCK":
        return data
    import duckdb
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{str(path)}' AS f (READ_ONLY)")
        tables = [t for (t,) in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = 'f'").fetchall()]
        rows = [repr(con.execute(f'SELECT * FROM f."{t}"').fetchall()) for t in tables]
        return data + "\n".join(rows).encode("utf-8", "backslashreplace") + \
            "\n".join(rows).encode("unicode_escape")
    finally:
        con.close()


def failing_write(monkeypatch, marker: str, after: int) -> list[int]:
    """os.write fails with ENOSPC once `after` writes went to a file whose name holds `marker`."""
    real, calls = os.write, [0]

    def write(fd, data):
        try:
            name = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            name = ""
        if marker in name:
            calls[0] += 1
            if calls[0] > after:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)
    monkeypatch.setattr(os, "write", write)
    return calls


def fill(disk: Path, leave: int) -> Path:
    """Fill the disk until fewer than `leave` bytes are free; returns the filler to delete."""
    filler = disk / "filler"
    with filler.open("wb") as f:
        try:
            while os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize >= leave:
                f.write(b"\0" * 4096)
                f.flush()
                os.fsync(f.fileno())
        except OSError:
            pass
    return filler
