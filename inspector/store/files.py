"""Files the store writes: private modes (0700/0600), whole writes, fsync of file and
directory, and the atomic replace (temp file, fsync, rename, fsync directory) that erasure
uses. A crash hook lets the crash harness stop the process between stages."""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE, DIR_MODE = 0o600, 0o700
# Crash harness hook: called with a stage name ("before_write", "after_write") when set.
crash_hook = None


def make_dir(path: Path) -> None:
    """Create a directory 0700 (and parents the tool owns); never widen an existing one."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)


def write_file(path: Path, data: bytes) -> None:
    """Write a new file 0600 and fsync it and its directory."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_dir(path.parent)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replace_file(path: Path, chunks, hook_prefix: str = "rewrite") -> None:
    """Write `chunks` to a temp file beside `path`, fsync, rename over it, fsync the directory:
    after a crash the file is wholly the old or wholly the new one."""
    temp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        for chunk in chunks:
            write_all(fd, chunk)
        os.fsync(fd)
    finally:
        os.close(fd)
    _hook(f"{hook_prefix}:after_temp")
    os.rename(temp, path)
    _hook(f"{hook_prefix}:after_rename")
    fsync_dir(path.parent)
    _hook(f"{hook_prefix}:after_dir_fsync")


def _hook(stage: str) -> None:
    if crash_hook:
        crash_hook(stage)
