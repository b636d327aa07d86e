"""The TUI's detail reads take no lock (a long read must not hold up a catch-up), so one can
run while a reload replaces the store's tables under it. helper-65's TUI run: a detail read
then raised, the worker's error closed the app; and DuckDB read the Python module named
`entries` in the caller's frame as the missing table. A read that fails waits for the load
in progress and is taken again; a table that is not there is never a Python object."""

from __future__ import annotations

import threading
import time

import pytest

from storegen import entry, write_store
from inspector.store.engine import duckdb
from inspector.tui.session import Session


def opened(tmp_path) -> Session:
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", entry("A", value="x")),
                                        ("2025-01-02T00:00:00Z", "write", entry("B", value="y"))])
    s = Session(root)
    s.open()
    return s


def tables_gone_for(s: Session, seconds: float, name: str = "entries") -> threading.Thread:
    """A thread that holds the store's lock with the view `name` gone for `seconds`, as a
    reload does between dropping what it read and loading again."""
    held = threading.Event()

    def reload() -> None:
        with s.store.lock:
            cur = s.store.cursor()
            cur.execute(f"ALTER VIEW {name} RENAME TO {name}_aside")
            held.set()
            time.sleep(seconds)
            cur.execute(f"ALTER VIEW {name}_aside RENAME TO {name}")
            cur.close()
    thread = threading.Thread(target=reload)
    thread.start()
    held.wait(5)
    return thread


@pytest.mark.parametrize("with_lineage", [False, True])
def test_a_detail_read_while_a_load_replaces_the_tables_waits_for_it(tmp_path, with_lineage):
    s = opened(tmp_path)
    loading = tables_gone_for(s, 0.5)
    started = time.monotonic()
    found = s.detail("B", None, with_lineage=with_lineage)
    waited = time.monotonic() - started
    loading.join()
    assert (found.memory_id, found.entry["value"], found.lineage_loaded) == ("B", "y", with_lineage)
    assert waited >= 0.4                  # it waited for the load, instead of failing


def test_the_lineage_half_read_while_a_load_replaces_the_tables_waits_for_it(tmp_path):
    s = opened(tmp_path)
    found = s.detail("A", None, with_lineage=False)
    loading = tables_gone_for(s, 0.3)
    s.add_lineage(found)
    loading.join()
    assert found.lineage_loaded is True


def test_any_read_of_the_session_waits_for_the_load_in_progress(tmp_path):
    """Every TUI read goes through Session.reader(): the header's hash at a seq, here."""
    s = opened(tmp_path)
    expected = s.hash_at(2)
    loading = tables_gone_for(s, 0.3, "versions")
    started = time.monotonic()
    assert s.hash_at(2) == expected and len(expected) == 64
    assert time.monotonic() - started >= 0.2
    loading.join()


def test_a_missing_table_is_never_read_from_a_python_name(tmp_path):
    s = opened(tmp_path)
    cur = s.store.cursor()
    cur.execute("ALTER VIEW entries RENAME TO entries_aside")
    entries = [("a python list", 1)]         # what a replacement scan would read
    with pytest.raises(duckdb.CatalogException):
        cur.execute("SELECT * FROM entries").fetchall()
    assert entries == [("a python list", 1)]
