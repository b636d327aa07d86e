"""Files the store writes: private modes (0700/0600), whole writes, fsync of file and
directory, and the atomic replace (temp file, fsync, rename, fsync directory) that erasure
uses. A crash hook lets the crash harness stop the process between stages.

No file is written through a link or over an existing file: new files are created with
O_CREAT | O_EXCL | O_NOFOLLOW inside a directory opened with O_NOFOLLOW, so a link planted
in a store another account could reach is never followed (DESIGN §6, "No links, no
strangers"). The replace keeps the owner, group and mode of the file it replaces.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from pathlib import Path

from .errors import BadInput

FILE_MODE, DIR_MODE = 0o600, 0o700
CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
TEMP_MARK = ".tmp-"          # `.<name>.tmp-<pid>-<random>`: a replace's temp file beside <name>
# Crash harness hook: called with a stage name ("before_write", "erase:after_temp", …) when set.
crash_hook = None


def read_regular(path: Path) -> bytes:
    """The bytes of a file the store keeps (its policy, a certificate), which must be a regular
    file of its own: a FIFO or a device planted in its place would block or never end the
    read, so it is opened without waiting and refused (OSError) before anything is read; a
    symbolic link is not followed, a directory not opened as a file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "a symbolic link, not a regular file", str(path)) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "a directory, not a regular file" if stat.S_ISDIR(mode)
                          else "not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as f:
        os.set_blocking(fd, True)
        return f.read()


def make_dir(path: Path) -> None:
    """Create a directory 0700 (and parents the tool owns); never widen an existing one."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)


def refuse_link(path: Path, *, directory: bool = False) -> None:
    """BadInput naming `path` when it is a symbolic link (or, for `directory`, not a directory)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise BadInput(f"{path} is a symbolic link; a store's files must not be links: "
                       "nothing was written (replace it with a real "
                       f"{'directory' if directory else 'file'} or remove it)")
    if directory and not stat.S_ISDIR(st.st_mode):
        raise BadInput(f"{path} is not a directory; nothing was written (move it away)")


def open_dir(path: Path, *, follow: bool = True) -> int:
    """A descriptor of directory `path`; with follow=False a link in its last part is refused
    (BadInput), so what is created through the descriptor lands in the store itself."""
    flags = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(path, flags if follow else flags | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            refuse_link(path, directory=True)
        raise


def write_file(path: Path, data: bytes) -> None:
    """Create a new file 0600 holding `data` and fsync it and its directory. The file is never
    a link followed or an existing file replaced (FileExistsError); a failed write leaves no
    partial file behind. (The directory is the caller's: a store root may be reached through
    a link; the store's own subdirectories are written with `write_new`.)"""
    dir_fd = open_dir(path.parent)
    try:
        _write_new(dir_fd, path, data)
    finally:
        os.close(dir_fd)


def write_new(directory: Path, name: str, data: bytes) -> Path:
    """`write_file` into a store subdirectory (torn/, certificates/), made 0700 if missing,
    which must not be a link."""
    try:
        make_dir(directory)
    except FileExistsError:
        pass                                  # a link or a file there: refused just below
    dir_fd = open_dir(directory, follow=False)
    try:
        _write_new(dir_fd, directory / name, data)
    finally:
        os.close(dir_fd)
    return directory / name


def _write_new(dir_fd: int, path: Path, data: bytes) -> None:
    fd = _create(path, dir_fd)
    try:
        write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink(path.name, dir_fd)
        raise
    os.close(fd)
    os.fsync(dir_fd)


def save_aside(directory: Path, name: str, data: bytes) -> Path:
    """Keep `data` as a new file `directory/name` (see `write_new`). An existing file of that
    name with the same bytes is kept (a recovery run twice); one with other bytes gets a
    sibling `name.1`, `name.2`, …: nothing is overwritten."""
    for n in range(10_000):
        target = name if n == 0 else f"{name}.{n}"
        try:
            return write_new(directory, target, data)
        except FileExistsError:
            if _same_bytes(directory / target, data):
                return directory / target
    raise BadInput(f"{directory} holds too many files named {name}.*; move them away")


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as f:
        return f.read(len(data) + 1) == data


def failure(exc: OSError) -> tuple[str, str]:
    """(what a failed write says, what to do about it), for a one-line refusal."""
    return (exc.strerror or exc.__class__.__name__,
            "free some space" if exc.errno == errno.ENOSPC else "fix that")


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def fsync_dir(path: Path) -> None:
    _fsync_path(path, os.O_DIRECTORY)


def fsync_file(path: Path) -> None:
    """fsync a file by name, never through a link."""
    _fsync_path(path, os.O_NOFOLLOW)


def _fsync_path(path: Path, flags: int) -> None:
    fd = os.open(path, os.O_RDONLY | flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def temp_name(name: str) -> str:
    return f".{name}{TEMP_MARK}{os.getpid()}-{secrets.token_hex(4)}"


def is_temp_of(candidate: str, name: str) -> bool:
    return candidate.startswith(f".{name}{TEMP_MARK}")


def replace_file(path: Path, chunks, hook_prefix: str = "rewrite") -> None:
    """Write `chunks` to a new temp file beside `path`, give it the owner, group and mode of
    `path`, fsync, rename it over `path`, fsync the directory: after a crash the file is
    wholly the old or wholly the new one. Refuses (BadInput) when `path` is a link. Any error
    before the rename (a full disk: OSError) removes the temp file and leaves `path` as it
    was; the error is raised as it came."""
    refuse_link(path)
    old = os.stat(path, follow_symlinks=False)
    dir_fd = open_dir(path.parent)
    try:
        temp = temp_name(path.name)
        fd = _create(path.with_name(temp), dir_fd)
        try:
            _keep_owner_and_mode(fd, old, path)
            first = True
            for chunk in chunks:
                write_all(fd, chunk)
                if first:
                    _hook(f"{hook_prefix}:writing")
                    first = False
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            _unlink(temp, dir_fd)
            raise
        os.close(fd)
        _hook(f"{hook_prefix}:after_temp")
        try:
            os.rename(temp, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            _unlink(temp, dir_fd)
            raise
        _hook(f"{hook_prefix}:after_rename")
        os.fsync(dir_fd)
        _hook(f"{hook_prefix}:after_dir_fsync")
    finally:
        os.close(dir_fd)


def _keep_owner_and_mode(fd: int, old: os.stat_result, path: Path) -> None:
    """The new file takes the old one's owner, group and permission bits (DESIGN §6)."""
    new = os.fstat(fd)
    if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except PermissionError:
            raise BadInput(f"cannot keep the owner of {path} (uid {old.st_uid}, gid {old.st_gid}) "
                           "across the rewrite: run this as that account; nothing was changed") from None
    os.fchmod(fd, stat.S_IMODE(old.st_mode))


def _create(path: Path, dir_fd: int) -> int:
    try:
        return os.open(path.name, CREATE, FILE_MODE, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            refuse_link(path)
        raise


def _unlink(name: str, dir_fd: int) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass


def remove_tree(path: Path) -> None:
    """Delete `path` and everything under it; a link is removed, never followed."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path)               # fd-based: does not follow links inside the tree
    else:
        path.unlink(missing_ok=True)


def _hook(stage: str) -> None:
    if crash_hook:
        crash_hook(stage)
