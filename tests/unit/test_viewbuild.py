"""A cold load that writes its view file as it reads (viewbuild.py): the same tables as a load in
memory, every range moved into the file, and no temp file left however the load ends."""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
from pathlib import Path

import pytest

from inspector.store import coldload, view, viewbuild
from inspector.store.load import Store
from storegen import entry, write_store

TABLES = ("SELECT * FROM versions ORDER BY seq", "SELECT * FROM entries ORDER BY memory_id",
          "SELECT * FROM edges ORDER BY ALL", "SELECT * FROM known_ids ORDER BY ALL")


@pytest.fixture
def ranged(tmp_path, monkeypatch) -> Path:
    """40 entries, 10 keys each written four times (so later ranges replace earlier entries),
    the last ones citing the first; read cold in ranges of about 2,000 bytes, the rows moved
    into the view file before every range."""
    monkeypatch.setenv("INSPECTOR_COLD_CHUNK_BYTES", "2000")
    monkeypatch.setenv("INSPECTOR_COLD_FOLD_BYTES", "0")
    made = [entry(f"M{i}", attribute=f"a{i % 10}", value=f"v{i}-" + "x" * 200,
                  kind="summary" if i >= 30 else "observation",
                  justification=[f"M{i - 30}", f"M{i - 29}"] if i >= 30 else [])
            for i in range(40)]
    return write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", e) for e in made])


def in_memory(root: Path, monkeypatch) -> list:
    """The tables of a cold load that keeps them in memory (no view file written)."""
    with monkeypatch.context() as m:
        m.setattr(viewbuild, "begin", lambda *args: None)
        m.setattr(view, "publish", lambda *args, **kw: False)
        s = Store(root, warn=False)
        tables = [s.con.execute(q).fetchall() for q in TABLES]
        s.close()
    shutil.rmtree(root / ".inspector", ignore_errors=True)
    return tables


def counting_folds(monkeypatch) -> list[int]:
    folds: list[int] = []
    real = viewbuild.Build.fold

    def fold(self):
        folds.append(self.con.execute("SELECT count(*) FROM versions_new").fetchone()[0])
        real(self)
    monkeypatch.setattr(viewbuild.Build, "fold", fold)
    return folds


def cache_files(root: Path) -> list[str]:
    return sorted(os.listdir(root / ".inspector")) if (root / ".inspector").exists() else []


def test_a_cold_load_moves_every_range_into_the_view_file_and_answers_the_same(ranged, monkeypatch):
    expected = in_memory(ranged, monkeypatch)
    assert [len(t) for t in expected] == [40, 40, 20, 40]
    folds = counting_folds(monkeypatch)
    s = Store(ranged, warn=False)
    # one fold before each range after the first (the first finds nothing read), and the last
    # rows moved by finish: every event went through the file
    assert len(folds) > 5 and sum(folds) == 40 and folds[0] == 0
    assert [s.con.execute(q).fetchall() for q in TABLES] == expected
    assert (s.base_seq, s.state.seq, s.build) == (40, 40, None)
    assert s.con.execute("SELECT count(*) FROM versions_new").fetchone() == (0,)
    assert cache_files(ranged) == ["view.duckdb"]
    s.close()
    again = Store(ranged, warn=False)                         # the next command reads the view
    assert [again.con.execute(q).fetchall() for q in TABLES] == expected
    assert again.state.warnings == []
    again.close()


def test_a_view_file_that_cannot_take_the_rows_means_a_load_in_memory(ranged, monkeypatch):
    """A fold fails (a full disk): what the file held is gone, so the log is read again in
    memory; the view is then written as a publish writes it, and the temp file is gone."""
    expected = in_memory(ranged, monkeypatch)
    calls: list[int] = []
    real = viewbuild.Build.fold

    def fold(self):
        calls.append(1)
        if len(calls) == 3:
            raise viewbuild.BuildFailed("No space left on device")
        real(self)
    monkeypatch.setattr(viewbuild.Build, "fold", fold)
    s = Store(ranged, warn=False)
    assert len(calls) == 3 and s.build is None
    assert [s.con.execute(q).fetchall() for q in TABLES] == expected
    assert (s.base_seq, s.state.warnings) == (40, [])
    assert cache_files(ranged) == ["view.duckdb"]
    s.close()


@pytest.mark.parametrize("error", [KeyboardInterrupt, MemoryError])
def test_a_cold_load_stopped_in_the_middle_leaves_no_temp_file(ranged, monkeypatch, error):
    real = coldload._take_range
    taken: list[int] = []

    def take(store, start, end, exact, torn, ends):
        taken.append(start)
        if len(taken) == 4:
            assert len(cache_files(ranged)) == 1 and cache_files(ranged)[0] != "view.duckdb"
            raise error()
        real(store, start, end, exact, torn, ends)
    monkeypatch.setattr(coldload, "_take_range", take)
    with pytest.raises(error):
        Store(ranged, warn=False)
    assert cache_files(ranged) == []


def test_inspector_deleted_during_a_build_makes_the_load_start_again_in_memory(ranged, monkeypatch):
    """An erasure deletes `.inspector` whole while a load writes into it (here without replacing
    the log): the next fold cannot write the file's log of changes, so the load reads the log
    again in memory and then publishes as a load in memory does."""
    expected = in_memory(ranged, monkeypatch)
    real, real_fold = coldload._take_range, viewbuild.Build.fold
    taken: list[int] = []
    failed: list[str] = []

    def take(store, start, end, exact, torn, ends):
        real(store, start, end, exact, torn, ends)
        taken.append(start)
        if len(taken) == 2:
            shutil.rmtree(ranged / ".inspector")

    def fold(self):
        try:
            real_fold(self)
        except viewbuild.BuildFailed as exc:
            failed.append(str(exc))
            raise
    monkeypatch.setattr(coldload, "_take_range", take)
    monkeypatch.setattr(viewbuild.Build, "fold", fold)
    s = Store(ranged, warn=False)
    assert len(failed) == 1 and "No such file or directory" in failed[0]
    assert [s.con.execute(q).fetchall() for q in TABLES] == expected
    assert s.base_seq == 40 and cache_files(ranged) == ["view.duckdb"]
    s.close()


def hold_lock(root: Path) -> int:
    """Another holder of the store's lock (a writer appending); os.close(fd) lets it go."""
    fd = os.open(root / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_a_build_waits_a_moment_for_a_writer_to_let_the_lock_go(ranged, monkeypatch):
    """The writer lets the lock go 0.2 s after the build first tries to rename its file."""
    tries: list[object] = []
    real = view.rename_if_current
    fd = hold_lock(ranged)
    timer = threading.Timer(0.2, os.close, [fd])

    def rename(*args):
        if not tries:
            timer.start()
        tries.append(1)
        return real(*args)
    monkeypatch.setattr(view, "rename_if_current", rename)
    s = Store(ranged, warn=False)
    timer.join()
    assert 3 <= len(tries) < viewbuild.RENAME_TRIES
    assert s.base_seq == 40 and cache_files(ranged) == ["view.duckdb"]
    s.close()


def test_a_build_the_lock_keeps_out_is_not_published_and_the_log_answers(ranged, monkeypatch):
    expected = in_memory(ranged, monkeypatch)
    monkeypatch.setattr(viewbuild, "RENAME_PAUSE", 0.001)
    fd = hold_lock(ranged)
    try:
        s = Store(ranged, warn=False)
    finally:
        os.close(fd)
    assert cache_files(ranged) == []                  # the build's temp file is gone
    assert s.base_seq == 0 and [s.con.execute(q).fetchall() for q in TABLES] == expected
    s.close()
