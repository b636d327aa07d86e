"""The hidden directory an import builds its new store in, and what becomes of it when the
import is stopped before it finishes.

An import writes every value it read into `.NAME.importing-XXXXXXXX/` beside the target and
renames that directory to NAME at the end. An error removes it; while it exists SIGTERM and
SIGHUP are turned into an error, so they remove it too. SIGKILL (or a power cut) cannot be
caught, so every import first sweeps the target's parent for such directories that no live
import holds, removes them and says so.

Whether an import still holds its directory is told by an exclusive flock on `import.lock`
inside it, taken before the directory gets its `.importing-` name and held until it is renamed
into place or removed. The kernel drops a flock when its process ends, however it ends, so a
lock another process can take means the import is gone. A recorded pid could not say as much:
pids are reused, and the pid of an import in another pid namespace (a container that shares
the directory) names some other process here.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..present.text import render_message
from ..store.errors import BadInput

LOCK_NAME = "import.lock"
# `.NAME.importing-` and tempfile.mkdtemp's suffix, as every release has named it
_STAGED = re.compile(r"\.(.+)\.importing-([a-z0-9_]{8})")
_CAUGHT = (signal.SIGTERM, signal.SIGHUP)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def say(message: str) -> None:
    """One line on stderr; a path may hold any character, so escapes are made visible."""
    sys.stderr.write(render_message(message) + "\n")
    sys.stderr.flush()


# -- SIGTERM and SIGHUP --------------------------------------------------------------------------

class Stopped(BaseException):
    """SIGTERM or SIGHUP arrived while an import held a staging directory."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextmanager
def stops_as_errors():
    """Inside, SIGTERM and SIGHUP raise Stopped, so the cleanup an error runs runs for them
    too; after it the signal is raised again and ends the process as it would have.

    A handler that is not the default (nohup's SIG_IGN, a caller's own) is left alone, and so
    is every handler outside the main thread, where Python cannot set them."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in _CAUGHT}

    def stop(signum, _frame):
        for other in _CAUGHT:            # a second signal must not cut the cleanup short
            signal.signal(other, signal.SIG_IGN)
        raise Stopped(signum)

    try:
        for signum, handler in previous.items():
            if handler is signal.SIG_DFL:
                signal.signal(signum, stop)
        yield
    except Stopped as stopped:
        _restore(previous)
        signal.raise_signal(stopped.signum)
        raise SystemExit(128 + stopped.signum) from None
    finally:
        _restore(previous)


def _restore(previous: dict) -> None:
    for signum, handler in previous.items():
        if handler is not None:
            signal.signal(signum, handler)


# -- the staging directory -----------------------------------------------------------------------

@dataclass
class Staging:
    """A staging directory and the descriptor of its held lock."""

    path: Path
    lock: int

    def finish(self, target: Path) -> None:
        """Rename the directory to `target`, without its lock file, and let the lock go."""
        os.unlink(self.path / LOCK_NAME)
        os.rename(self.path, target)
        os.close(self.lock)

    def discard(self) -> None:
        try:
            remove_lock_last(self.path)
        except OSError:
            shutil.rmtree(self.path, ignore_errors=True)
        os.close(self.lock)


def remove_lock_last(path: Path) -> None:
    """Remove a staging directory, its lock file last: one whose removal is cut short still
    has its lock, so the next sweep still knows it for abandoned."""
    for entry in os.scandir(path):
        if entry.name == LOCK_NAME:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    os.unlink(path / LOCK_NAME)
    os.rmdir(path)


def stage(target: Path) -> Staging:
    """A new, locked `.NAME.importing-XXXXXXXX/` beside `target`; BadInput when it cannot be
    made. It is made as `.NAME.starting-XXXXXXXX/` and renamed once its lock is held, so a
    sweep never finds an `.importing-` directory between its making and its locking."""
    try:
        start = Path(tempfile.mkdtemp(prefix=f".{target.name}.starting-", dir=target.parent))
    except OSError as exc:
        raise BadInput(f"cannot create a directory in {target.parent}: {exc.strerror}") from None
    lock = None
    try:
        lock = os.open(start / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                       | _CLOEXEC, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        suffix = start.name[len(f".{target.name}.starting-"):]
        path = target.parent / f".{target.name}.importing-{suffix}"
        os.rename(start, path)
        return Staging(path, lock)
    except BaseException as exc:
        shutil.rmtree(start, ignore_errors=True)
        if lock is not None:
            os.close(lock)
        if isinstance(exc, OSError):
            raise BadInput(f"cannot create a directory in {target.parent}: "
                           f"{exc.strerror or exc}") from None
        raise


# -- what stopped imports left -------------------------------------------------------------------

def sweep(parent: Path) -> None:
    """Remove every staging directory in `parent` whose import has ended, one line each on
    stderr; name, and leave, one that holds no lock to tell."""
    try:
        names = sorted(os.listdir(parent))
    except OSError:
        return
    for name in names:
        found = _STAGED.fullmatch(name)
        if found:
            _sweep_one(parent / name, parent / found.group(1))


def _sweep_one(path: Path, target: Path) -> None:
    try:
        st = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        return                  # not a directory an import by this account made
    try:
        lock = os.open(path / LOCK_NAME, os.O_RDWR | os.O_NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        return _unlocked(path, target, "it holds no import lock (an older release made it, "
                                       "or an import is renaming it into place now)")
    except OSError:
        return
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(lock)
        return                  # a live import holds it
    except OSError as exc:
        os.close(lock)
        return _unlocked(path, target, f"its import lock cannot be taken here ({exc.strerror})")
    try:
        _remove(path, target)
    finally:
        os.close(lock)


def _remove(path: Path, target: Path) -> None:
    try:
        remove_lock_last(path)
    except OSError as exc:
        say(f"{path}: left by an import into {target} that was stopped before it finished, and "
            f"it may hold every value that import read, but it cannot be removed "
            f"({exc.strerror}): remove it yourself")
        return
    say(f"removed {path}: an import into {target} was stopped before it finished and left it, "
        "holding the values it had read")


def _unlocked(path: Path, target: Path, why: str) -> None:
    say(f"{path}: left by an import into {target}, and it may hold every value that import "
        f"read; {why}, so it was not removed: remove it once no import is running in "
        f"{target.parent}")


# -- private copies of a source (source.py) -------------------------------------------------------

COPY_PREFIX = "inspector-import-"


def lock_copy_dir(path: Path) -> int:
    """Hold the lock of a private copy's directory (made by mkdtemp: no sweep removes it while
    it has no lock file, nor once its lock is held); the descriptor to close after removing it."""
    lock = os.open(path / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                   | _CLOEXEC, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return lock


def sweep_copies(parent: Path) -> None:
    """Remove the private copies of a source database (`inspector-import-*/` in the temporary
    directory) that an import killed outright left, each holding the values it had read: one
    of this account's whose lock can be taken; one line each on stderr. One without a lock
    file (being made now, or an older release's) is left."""
    try:
        names = sorted(n for n in os.listdir(parent) if n.startswith(COPY_PREFIX))
    except OSError:
        return
    for name in names:
        path = parent / name
        try:
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
                continue
            lock = os.open(path / LOCK_NAME, os.O_RDWR | os.O_NOFOLLOW | _CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            remove_lock_last(path)
        except OSError:
            continue            # a live import holds it, or it cannot be removed now
        finally:
            os.close(lock)
        say(f"removed {path}: a copy of a source database that an import was reading when it "
            "was stopped")
