"""The one way events enter a log (DESIGN §7, crash safety).

Under an exclusive `flock` on the store's lock file: an incomplete last line left by a crash
is moved to `torn/<offset>` and cut off; new events are chained to the last line, written as
whole lines in one `os.write` loop, and fsynced before anyone is told they exist.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from . import jsonsafe
from .commits import Written, record, uninterrupted
from .chain import GENESIS, line_bytes, new_salt, seal_after
from .contract import is_unicode
from .errors import BadInput, WriteFailed
from .batches import whole_tail
from .logfile import LOG_NAME, StorePaths, last_line, say_line
from .files import DIR_MODE, FILE_MODE, failure, make_dir, write_all, write_file, _hook
from .model import now_text
from .recovery import settle_certificates

def init_store(root: str | os.PathLike) -> StorePaths:
    """Create an empty store: the directory 0700 and an empty log 0600. A directory that
    already holds other files keeps its mode (the command line warns when others can read it)."""
    paths = StorePaths(Path(root))
    if paths.log.exists():
        raise BadInput(f"{paths.root} is already a store ({LOG_NAME} exists); nothing was changed")
    if paths.root.exists() and not paths.root.is_dir():
        raise BadInput(f"{paths.root} exists and is not a directory; choose another path")
    if paths.root.is_symlink() and not paths.root.exists():
        raise BadInput(f"{paths.root} is a symbolic link to {os.readlink(paths.root)}, which does "
                       "not exist; give the store's real path, or create that directory first")
    fresh = not paths.root.exists() or not any(os.scandir(paths.root))
    make_dir(paths.root)
    if fresh:   # an empty directory becomes the store, private as a new one (mkdir kept 0755)
        os.chmod(paths.root, DIR_MODE)
    write_file(paths.log, b"")
    return paths


def event_draft(op: str, memory_id: str, actor: str, *, before=None, after=None,
                reason=None, batch=None) -> dict:
    """An event without seq, at, digests and chain fields; the writer fills them in."""
    return {"actor": actor, "op": op, "memory_id": memory_id, "batch": batch,
            "body": {"before": before, "after": after, "reason": reason, "salt": new_salt()}}


WRITE_CHUNK = 1 << 16     # a crash can fall between chunks: readers set a partial batch aside


LOCK_NOTICE_AFTER = 1.0      # seconds a writer waits for the lock before it says so


def wait_for_lock(fd: int, lock: Path) -> None:
    """Take the exclusive lock on `fd`. When another writer holds it for more than a second, say
    so once and keep waiting: a writer legitimately holds it for as long as its work takes (an
    erasure rewriting a large log, a big ingest), so a time limit would fail good commands,
    while the line tells the person why nothing happens (ctrl-c stops this one unwritten)."""
    deadline = time.monotonic() + LOCK_NOTICE_AFTER
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
    say_line(f"waiting for {lock} (another writer holds it)…")
    fcntl.flock(fd, fcntl.LOCK_EX)


class LogWriter:
    """Holds the store's lock; `append()` chains and writes events. Use as a context manager."""

    def __init__(self, paths: StorePaths):
        self.paths = paths
        self._lock_fd: int | None = None
        self._torn_aside = False
        self.seq, self.prev = 0, GENESIS

    def __enter__(self) -> "LogWriter":
        from .logfile import check_writable
        check_writable(self.paths)          # no links, no group/other-writable store (DESIGN §6)
        self._lock_fd = os.open(self.paths.lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, FILE_MODE)
        wait_for_lock(self._lock_fd, self.paths.lock)
        try:
            try:
                settle_certificates(self.paths)
            except OSError as exc:
                raise self._aside_failed(exc) from None
            self._read_head()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    def set_torn_aside(self) -> None:
        """Move an incomplete last line (a writer that died mid-line) to torn/<offset>, just
        before the log is written: a command refused before it writes changes nothing."""
        if self._torn_aside:
            return
        tail = whole_tail(self.paths.log)
        if tail.torn:
            from .files import save_aside
            try:
                save_aside(self.paths.torn, str(tail.end), tail.torn)   # never through a link
                fd = os.open(self.paths.log, os.O_WRONLY | os.O_NOFOLLOW)
                try:
                    os.ftruncate(fd, tail.end)
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError as exc:
                raise self._aside_failed(exc) from None
        self._torn_aside = True

    def _aside_failed(self, exc: OSError) -> WriteFailed:
        what, fix = failure(exc)
        return WriteFailed(f"cannot write to {self.paths.root}: setting an unfinished write aside "
                           f"failed ({what}); nothing was written: {fix} and run the command again")

    def _read_head(self) -> None:
        end = whole_tail(self.paths.log).end        # an incomplete last line is not the head
        if end == 0:
            return
        try:
            line = jsonsafe.loads(last_line(self.paths.log, end))
            self.seq, self.prev = int(line["seq"]), line.get("hash") or GENESIS
        except (ValueError, KeyError, TypeError) as exc:
            raise BadInput(f"cannot append: the last line of {self.paths.log} is not a valid event "
                           f"({exc}); run `inspector audit --verify {self.paths.root}`") from None

    def append(self, drafts: list[dict]) -> list[dict]:
        """Seal the drafts after the current head, write them in one go, fsync; return them."""
        if not drafts:
            return []
        batches = {d.get("batch") for d in drafts}
        if len(drafts) > 1 and len(batches) == 1 and None not in batches:
            drafts = [{**d, "batch_size": len(drafts)} for d in drafts]   # all or nothing
        events = seal_after(drafts, self.seq, self.prev, now_text())
        lines = [line_bytes(e) for e in events]
        for event, line in zip(events, lines):
            _check_utf8(event, line)
        self.set_torn_aside()
        with uninterrupted():       # a ctrl-c waits until the write is whole and recorded
            self._write(b"".join(lines))
            self.seq, self.prev = events[-1]["seq"], events[-1]["hash"]
            record(Written(self.paths.root, "batch",
                           events[-1].get("batch") or f"seq {events[0]['seq']}", len(events)))
        return events

    def _write(self, data: bytes) -> None:
        """Write whole lines at the end and fsync. A failed write or fsync (a full disk, an I/O
        error) cuts the log back to where it ended, so nothing of it stands, and is one line."""
        fd = os.open(self.paths.log, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
        try:
            end = os.fstat(fd).st_size          # under the lock: nobody else appends
            try:
                _hook("before_write")
                for start in range(0, len(data), WRITE_CHUNK):
                    if start:
                        _hook("mid_write")
                    write_all(fd, data[start:start + WRITE_CHUNK])
                _hook("after_write")
                os.fsync(fd)
            except OSError as exc:
                what, fix = failure(exc)
                raise WriteFailed(f"cannot write to {self.paths.log}: {what}; {_cut_back(fd, end)}: "
                                  f"{fix} and run the command again") from None
        finally:
            os.close(fd)


def _check_utf8(event: dict, line: bytes) -> None:
    """Refuse, before anything is written, a line no reader would take: text that is not valid
    Unicode (a lone surrogate, as Python keeps bytes a terminal gave that are not UTF-8) is
    written with `surrogatepass`, which is not UTF-8."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        where = next((f'field "{name}"' for name, text in event.items()
                      if isinstance(text, str) and not is_unicode(text)), "its body")
        raise BadInput(f"the event for {event.get('memory_id')!r} holds text that is not valid "
                       f"UTF-8 ({where}); give it in UTF-8: nothing was written") from None


def _cut_back(fd: int, end: int) -> str:
    """Undo a failed append: the log back to `end` bytes. Says what stands."""
    try:
        os.ftruncate(fd, end)
        os.fsync(fd)
    except OSError:
        return ("cutting the log back failed too, so its whole lines may stand (readers ignore an "
                "unfinished batch; the next write moves a torn end to torn/)")
    return "nothing of it was written"
