"""Reading a foreign SQLite file creates nothing beside it, whatever its journal mode: a
WAL-mode file with no `-wal`, one whose `-wal` a killed writer left (transactions only there),
one a program has open now; and the refusals when it cannot be read or changes meanwhile."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest

from importkit import listing, log
from inspector.importers import mem0
from inspector.importers.mem0 import import_mem0
from inspector.store.errors import BadInput

COLUMNS = ("id TEXT PRIMARY KEY, memory_id TEXT, old_memory TEXT, new_memory TEXT, event TEXT, "
           "created_at DATETIME, updated_at DATETIME, is_deleted INTEGER, actor_id TEXT, "
           "role TEXT")
M1 = "11111111-1111-4111-8111-111111111111"
M2 = "22222222-2222-4222-8222-222222222222"


def add(con: sqlite3.Connection, n: int, memory_id: str, text: str) -> None:
    con.execute("INSERT INTO history VALUES (?, ?, NULL, ?, 'ADD', ?, NULL, 0, NULL, NULL)",
                (str(n), memory_id, text, f"2025-03-01 09:00:0{n}"))
    con.commit()


def wal_history(path: Path) -> sqlite3.Connection:
    """A WAL-mode history.db holding M1, still open, that never checkpoints on its own."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute(f"CREATE TABLE history ({COLUMNS})")
    add(con, 1, M1, "likes tea")
    return con


def texts(store: Path) -> list[str]:
    return [event["body"]["after"]["value"] for event in log(store)]


def test_a_checkpointed_wal_file_is_read_with_nothing_created_beside_it(tmp_path):
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    wal_history(source_dir / "h.db").close()          # the last close checkpoints
    assert listing(source_dir) == ["h.db"]
    import_mem0(source_dir / "h.db", tmp_path / "out")
    assert listing(source_dir) == ["h.db"]
    assert texts(tmp_path / "out") == ["likes tea"]


def killed_writers(tmp_path: Path) -> Path:
    """src/h.db and the h.db-wal its writer left when killed (-9), M2 only in the -wal."""
    live = tmp_path / "live"
    live.mkdir()
    con = wal_history(live / "h.db")
    add(con, 2, M2, "walks the dog")
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    for name in ("h.db", "h.db-wal"):
        shutil.copyfile(live / name, source_dir / name)
    con.close()
    return source_dir


def test_a_wal_a_killed_writer_left_is_read_from_a_private_copy(tmp_path):
    """M2 is only in the -wal: an immutable open would lose it; a plain one would create
    h.db-shm beside the file."""
    source_dir = killed_writers(tmp_path)
    before = {name: (source_dir / name).read_bytes() for name in listing(source_dir)}
    import_mem0(source_dir / "h.db", tmp_path / "out")
    assert texts(tmp_path / "out") == ["likes tea", "walks the dog"]
    assert {name: (source_dir / name).read_bytes() for name in listing(source_dir)} == before
    assert sorted(before) == ["h.db", "h.db-wal"]


def test_a_file_a_program_has_open_is_read_through_its_shm(tmp_path):
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    con = wal_history(source_dir / "h.db")
    add(con, 2, M2, "walks the dog")
    try:
        assert listing(source_dir) == ["h.db", "h.db-shm", "h.db-wal"]
        import_mem0(source_dir / "h.db", tmp_path / "out")
        assert listing(source_dir) == ["h.db", "h.db-shm", "h.db-wal"]
    finally:
        con.close()
    assert texts(tmp_path / "out") == ["likes tea", "walks the dog"]


def test_a_wal_file_in_a_directory_that_cannot_be_written(tmp_path):
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    wal_history(source_dir / "h.db").close()
    source_dir.chmod(0o555)
    try:
        if os.access(source_dir, os.W_OK):
            pytest.skip("this account (root) writes any directory")
        import_mem0(source_dir / "h.db", tmp_path / "out")
    finally:
        source_dir.chmod(0o755)
    assert texts(tmp_path / "out") == ["likes tea"]


def test_a_file_written_while_it_is_read_is_refused(tmp_path, monkeypatch):
    source = tmp_path / "h.db"
    wal_history(source).close()
    read_rows = mem0.read_rows

    def read_then_write(*args):
        rows = read_rows(*args)
        writer = sqlite3.connect(source)
        add(writer, 2, M2, "walks the dog")
        writer.close()
        return rows
    monkeypatch.setattr(mem0, "read_rows", read_then_write)
    with pytest.raises(BadInput) as refused:
        import_mem0(source, tmp_path / "out")
    assert str(refused.value) == (
        f"{source} changed while it was being read (another program is writing it); nothing "
        "was written: stop that program, or import a copy of the file, and try again")
    assert listing(tmp_path) == ["h.db"]


def test_a_private_copy_that_cannot_be_made_is_one_line(tmp_path, monkeypatch):
    live = tmp_path / "live"
    live.mkdir()
    con = wal_history(live / "h.db")
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    for name in ("h.db", "h.db-wal"):
        shutil.copyfile(live / name, source_dir / name)
    con.close()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    with pytest.raises(BadInput) as refused:
        import_mem0(source_dir / "h.db", tmp_path / "out")
    assert str(refused.value) == (
        f"{source_dir / 'h.db'} has a write-ahead log that SQLite can read only by creating "
        f"files beside it, so it is read from a private copy, which cannot be made in "
        f"{tmp_path / 'missing'} (No such file or directory): set TMPDIR to a directory you "
        "can write that has room for it")
    assert listing(tmp_path) == ["live", "src"] and listing(source_dir) == ["h.db", "h.db-wal"]


def test_a_private_copy_a_killed_import_left_is_removed_by_the_next(tmp_path, monkeypatch, capsys):
    """A SIGKILL leaves the copy (every value of the source) in the temporary directory. The
    next import that copies removes one whose lock it can take and says so; it leaves one a
    running import holds, one with no lock file, and anything not named like a copy."""
    import fcntl
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    for name in ("inspector-import-dead", "inspector-import-live", "inspector-import-nolock",
                 "other"):
        (temp / name).mkdir(mode=0o700)
        (temp / name / "source.db").write_bytes(b"every value")
    for name in ("inspector-import-dead", "inspector-import-live"):
        (temp / name / "import.lock").write_bytes(b"")
    held = os.open(temp / "inspector-import-live" / "import.lock", os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        import_mem0(killed_writers(tmp_path) / "h.db", tmp_path / "out")
    finally:
        os.close(held)
    assert texts(tmp_path / "out") == ["likes tea", "walks the dog"]
    assert listing(temp) == ["inspector-import-live", "inspector-import-nolock", "other"]
    assert capsys.readouterr().err == (f"removed {temp / 'inspector-import-dead'}: a copy of a "
                                       "source database that an import was reading when it was "
                                       "stopped\n")
