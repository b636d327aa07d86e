"""A cold load written into its view file as it reads (DESIGN §2.5: memory).

Without this, a cold load holds every table it builds in memory and then copies them into a
new view file (view.publish): at 5M events of long-valued entries that held 5.4 GB. Here the
new view file is attached read-write as `base` from the start, under a temp name in
`.inspector`. When the rows read since (the `*_new` tables) grow past a limit, they are moved
into it (`fold`): the versions and known ids appended, the entries and edges of the ids read
again since replaced. DuckDB's cache of the blocks written is then let go, so memory holds one
range's scratch and at most the limit's rows, whatever the size of the log. The overlays answer
the same throughout: `base` holds exactly what a view published at the last fold would.

`finish` moves the rest, writes the record of the log and the indexes, and renames the file
into place as a publish does: under the store's lock, and only if the log is still the one
read. This process leaves no temp file behind: an error, an interrupt or a rename that is not
made deletes it (`abandon`). A process killed during a load leaves it to clean_stale_temps (an
hour) or to an erasure, which deletes `.inspector` whole (an erasure while a load writes makes
the next fold fail, and the load reads the log again in memory).
"""

from __future__ import annotations

import os
import time

from .engine import duckdb
from . import connection, lean, view
from .connection import EMPTY_BASE
from .files import fsync_file, temp_name
from .logfile import StorePaths
from .queries import sql

# Tables of the rows read since the last fold, moved into the view file by `fold`, then dropped
# and made again empty (dropping frees their memory at once; DELETE frees it at a checkpoint).
MOVE = ("build_versions", "build_entries_forget", "build_entries", "build_edges_forget",
        "build_edges", "build_known_ids", "build_version_keys")
DROP = ("drop_versions_new", "drop_entries_new", "drop_edges_new", "drop_known_new",
        "drop_version_keys_new")
CREATE = ("versions_create", "entries_create", "edges_create", "known_ids_create",
          "version_keys_create")
# A rename the store's lock keeps out (a writer appending) is tried again this many times, this
# far apart: a writer holds the lock for milliseconds, and a build not renamed is read again.
RENAME_TRIES = 20
RENAME_PAUSE = 0.05


class BuildFailed(Exception):
    """The view file being built could not take the rows read (a full disk, `.inspector` deleted
    by an erasure): what it held is gone, so the load starts again in memory."""


class Build:
    """A new view file attached as `base`, read-write, while a cold load fills it."""

    def __init__(self, con: duckdb.DuckDBPyConnection, paths: StorePaths):
        self.con = con
        self.paths = paths
        self.temp = paths.cache / temp_name(view.VIEW_NAME)
        self.identity: tuple[int, int] | None = None
        self.attached = False

    def start(self) -> None:
        """Put the new file in place of the empty in-memory `base`."""
        view.clean_stale_temps(self.paths, view.VIEW_NAME)
        self.con.execute(sql("base_detach"))
        self.con.execute(f"ATTACH '{view.quoted(self.temp)}' AS base")
        self.attached = True
        os.chmod(self.temp, view.FILE_MODE)
        st = os.lstat(self.temp)
        self.identity = st.st_dev, st.st_ino
        for name in EMPTY_BASE:
            self.con.execute(sql(name))

    def fold(self) -> None:
        """Move the rows read since into the file, empty the `*_new` tables and `touched`,
        and let go of DuckDB's cache of what was written. BuildFailed when the file cannot
        take them."""
        con = self.con
        try:
            for name in MOVE:
                # DuckDB caches the blocks it writes up to its memory limit: capped, it lets
                # them go as it writes (lean.capped runs it again uncapped if it needs more).
                used = con.execute(sql("memory_in_use")).fetchone()[0]
                lean.capped(con, lambda: con.execute(sql(name)), used + view.WRITE_HEADROOM)
            for name in (*DROP, *CREATE, "clear_touched"):
                con.execute(sql(name))
            con.execute("CHECKPOINT base")
        except duckdb.Error as exc:
            raise BuildFailed(str(exc).splitlines()[0]) from None
        lean.let_go(con)

    def finish(self, mark: view.Mark) -> bool:
        """Fold the rest, write the record of the log and the indexes, and rename the file into
        place if the log is still the one `mark` describes. Never fails the command: returns
        whether the view was published; the temp file is gone either way."""
        try:
            self.fold()
            self.con.execute("DETACH base")
            self.attached = False
            self._attach_again("target")
            try:
                view.write_record(self.con, mark)
            finally:
                self.con.execute("DETACH target")
            fsync_file(self.temp)
            for attempt in range(RENAME_TRIES):
                done = view.rename_if_current(self.paths, self.temp, mark,
                                              self.paths.cache / view.VIEW_NAME)
                if done is not None:
                    return done
                time.sleep(RENAME_PAUSE)
            return False
        except (duckdb.Error, OSError, BuildFailed):
            return False
        finally:
            self.abandon()

    def abandon(self) -> None:
        """Detach the file if it is attached and delete it (and its write-ahead log)."""
        if self.attached:
            self.attached = False
            try:
                self.con.execute("DETACH DATABASE IF EXISTS base")
            except duckdb.Error:
                pass
        view.remove_temp(self.temp)

    def _attach_again(self, alias: str) -> None:
        """Attach the file again, only if the name still holds the file this build made: an
        erasure deletes `.inspector`, and ATTACH would make an empty file in its place."""
        try:
            st = os.lstat(self.temp)
        except OSError as exc:
            raise BuildFailed(f"{self.temp} is gone") from exc
        if (st.st_dev, st.st_ino) != self.identity:
            raise BuildFailed(f"{self.temp} is not the file this load wrote")
        self.con.execute(f"ATTACH '{view.quoted(self.temp)}' AS {alias}")


def begin(con: duckdb.DuckDBPyConnection, paths: StorePaths, log_bytes: int) -> Build | None:
    """A Build for a cold load of a log of `log_bytes`, when a view of it would be published
    (view.write_derived's conditions); else None, and the load keeps its tables in memory."""
    if log_bytes < view.min_log_bytes() or not view.writable(paths):
        return None
    build = Build(con, paths)
    try:
        build.start()
    except (duckdb.Error, OSError):
        build.abandon()
        con.execute(sql("base_detach"))
        connection.attach_empty_base(con)
        return None
    return build
