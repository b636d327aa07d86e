"""The store directory and its log file: paths, permissions, the torn tail, reading lines.

Lines are split on b"\\n" only: a value may hold U+2028 or other characters that
str.splitlines() would treat as line breaks.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import BadInput

LOG_NAME = "events.jsonl"
_warned: set[str] = set()
_warn_lock = threading.Lock()


def _escaped_line(text: str) -> str:
    """Without a front end's sanitizer: every unprintable character as a visible escape."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# How the core's few lines for a person (the exposure warning, a wait for the lock) reach
# stderr. The core has no sanitizer of its own (a store path can hold ESC or a newline); the
# command line installs its one-line printer (`lines.say`).
_print_line: Callable[[str], None] = lambda text: sys.stderr.write(_escaped_line(text) + "\n")


def shell_path(path: str | os.PathLike) -> str:
    """`path` as one shell word a user can paste: quoted, and never read as an option. A path
    with a character that is not printable (a control, an invisible format character, bytes
    that are not UTF-8) is written in ANSI-C quotes with those bytes in octal (`$'a\\033b'`):
    the screen shows every one-line message with such characters escaped (`\\x1b`), which a
    shell would read as four characters. Octal, because the screen doubles a backslash
    before `x` or `u`, never before a digit; so `'` and `\\` are octal there too."""
    text = os.fspath(path)
    text = "./" + text if text.startswith("-") else text
    if text.isprintable():
        return shlex.quote(text)
    return "$'" + "".join(_octal(char) for char in text) + "'"


def _octal(char: str) -> str:
    if char.isprintable() and char not in "'\\":
        return char
    raw = char.encode("utf-8", "surrogateescape")   # a byte the file name holds as it is
    return "".join(f"\\{byte:03o}" for byte in raw)


def set_warning_printer(printer: Callable[[str], None]) -> None:
    global _print_line
    _print_line = printer


def say_line(text: str) -> None:
    """One line for the person waiting, through the printer the front end installed."""
    _print_line(text)


@dataclass(frozen=True)
class StorePaths:
    root: Path

    @property
    def log(self) -> Path:
        return self.root / LOG_NAME

    @property
    def lock(self) -> Path:
        return self.root / ".lock"

    @property
    def cache(self) -> Path:
        return self.root / ".inspector"

    @property
    def certificates(self) -> Path:
        return self.root / "certificates"

    @property
    def torn(self) -> Path:
        return self.root / "torn"


def store_paths(root: str | os.PathLike) -> StorePaths:
    """The paths of an existing store; BadInput when `root` is not one."""
    paths = StorePaths(Path(root))
    if not paths.root.is_dir():
        if paths.root.name == LOG_NAME and paths.root.parent.is_dir():
            raise BadInput(f"{paths.root} is the store's log, not the store: give its directory, "
                           f"`{shell_path(paths.root.parent)}`")
        if os.path.lexists(paths.root):    # `inspector init` refuses such a path too
            raise BadInput(f"{paths.root} is not a directory, so it is no store: give the store's "
                           f"directory (the one holding {LOG_NAME})")
        raise BadInput(f"{paths.root} is not a store directory; create one with `inspector init {shell_path(paths.root)}`")
    if not paths.log.is_file():
        if paths.log.is_symlink():       # dangling, or to a device: not "no log", which init refuses
            raise BadInput(f"{paths.log} is a symbolic link to {os.readlink(paths.log)!r}, which "
                           "is not a regular file; a store's log must be one: put the real "
                           "events.jsonl back")
        if os.path.lexists(paths.log):
            raise BadInput(f"{paths.log} is not a regular file (a FIFO, a device or a directory); "
                           "a store's log must be one: put the real events.jsonl back")
        raise BadInput(f"{paths.root} has no {LOG_NAME}; create a store with "
                       f"`inspector init {shell_path(paths.root)}`")
    return paths


def exposure_warning(paths: StorePaths) -> str | None:
    """A warning when group or others can read or write the store (DESIGN §2), else None."""
    exposed = [p for p in (paths.root, paths.log) if stat.S_IMODE(p.stat().st_mode) & 0o066]
    if not exposed:
        return None
    mode = stat.S_IMODE(exposed[0].stat().st_mode)
    can = " and ".join(word for word, bits in (("read", 0o044), ("written", 0o022)) if mode & bits)
    return (f"warning: {exposed[0]} can be {can} by group or others (mode {oct(mode)}); it holds "
            f"personal data: run `chmod -R go-rwx {shell_path(paths.root)}`")


def check_writable(paths: StorePaths) -> None:
    """What every command that writes checks first (DESIGN §6, "No links, no strangers"):
    none of the store's own paths is a symbolic link, the log is a regular file, and neither
    group nor others can write the store directory. BadInput (exit 2) naming the path."""
    for path in (paths.log, paths.torn, paths.certificates, paths.cache, paths.lock,
                 paths.root / "reports"):
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(st.st_mode):
            raise BadInput(f"{path} is a symbolic link; a store's files must not be links: "
                           "refusing to write (nothing was written)")
        if path == paths.log and not stat.S_ISREG(st.st_mode):
            raise BadInput(f"{path} is not a regular file; refusing to write (nothing was written)")
        if path == paths.lock and not stat.S_ISREG(st.st_mode):
            raise BadInput(f"{path} is not a regular file, so no writer can lock the store: "
                           "remove it (a writer makes a new one); nothing was written")
    mode = stat.S_IMODE(os.stat(paths.root).st_mode)
    if mode & 0o022:
        raise BadInput(f"{paths.root} can be written by group or others (mode {oct(mode)}), so "
                       "another account could plant files in it; refusing to write (nothing was "
                       f"written): run `chmod 700 {shell_path(paths.root)}`")


def warn_once(paths: StorePaths) -> str | None:
    """Print the exposure warning on stderr once per process per store; return it."""
    warning = exposure_warning(paths)
    key = str(paths.root.resolve())
    with _warn_lock:
        if warning and key not in _warned:
            _warned.add(key)
            _print_line(warning)
    return warning


@dataclass(frozen=True)
class Tail:
    """Where the complete lines of a log end, and what comes after (a torn last line)."""

    size: int
    end: int          # offset just after the last b"\n"
    torn: bytes       # bytes after it: an incomplete last line, or b""


TAIL_BLOCK = 1 << 16        # read_tail's first block; it doubles up to 16 MiB in a long line


def read_tail(path: Path, start: int = 0, stop: int | None = None) -> Tail:
    """Find the end of the last complete line, reading backwards from the end of the file (or
    from offset `stop`, treating the bytes before it as the whole file)."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END) if stop is None else stop
        pos, block, after = size, TAIL_BLOCK, []   # the blocks after pos, newest last
        while pos > start:
            step = min(block, pos - start)
            pos -= step
            f.seek(pos)
            data = f.read(step)
            cut = data.rfind(b"\n")                # only the new block: linear in a huge line
            if cut >= 0:
                return Tail(size, pos + cut + 1, b"".join([data[cut + 1:], *reversed(after)]))
            after.append(data)
            block = min(block * 2, 1 << 24)
        return Tail(size, start, b"".join(reversed(after)))


def count_lines(path: Path, end: int) -> int:
    """How many b"\\n" the first `end` bytes hold (runs beside DuckDB's parallel read)."""
    buf, n, left = bytearray(1 << 24), 0, end
    with open(path, "rb", buffering=0) as f:
        view = memoryview(buf)
        while left > 0:
            got = f.readinto(view[:min(len(buf), left)])
            if not got:
                break
            n += buf.count(b"\n", 0, got)
            left -= got
    return n


def chunk_bounds(path: Path, end: int, size: int) -> list[tuple[int, int]]:
    """Split the first `end` bytes (complete lines) into ranges of about `size` bytes that
    each end just after a b"\\n": every line falls wholly inside one range. What is left
    once less than one and a half ranges remain is one range (no small last range)."""
    bounds, start = [], 0
    with open(path, "rb", buffering=0) as f:
        while start < end:
            cut = start + size
            if end - start < size + size // 2:
                bounds.append((start, end))
                break
            f.seek(cut - 1)
            while True:
                block = f.read(1 << 16)
                at = block.find(b"\n") if block else -1
                if at >= 0 or not block:
                    break
                cut += len(block)
            cut = min(end, cut + at) if at >= 0 else end
            bounds.append((start, cut))
            start = cut
    return bounds


def copy_range(path: Path, start: int, end: int) -> tuple[int, int] | None:
    """An anonymous file beside the log (O_TMPFILE | O_EXCL: it never has a name, so nothing
    can open it by path, it can never be linked in, and the kernel frees it when its last
    descriptor closes, crash or not) holding bytes start..end of the log: (its descriptor, the
    bytes copied). None when the file system or the directory's permissions do not allow one,
    or the disk has no room (the caller then feeds a pipe)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag:
        return None
    try:
        fd = os.open(path.parent, flag | os.O_RDWR | os.O_EXCL, 0o600)
    except OSError:
        return None
    try:
        with open(path, "rb", buffering=0) as log:
            copied, left = 0, end - start
            while left > 0:
                got = os.copy_file_range(log.fileno(), fd, left, start + copied, None)
                if not got:
                    break
                copied += got
                left -= got
    except OSError:
        os.close(fd)
        return None
    return fd, copied


def feed_pipe(path: Path, start: int, end: int, pipe: int, fed: list[tuple[int, int]]) -> None:
    """Write bytes start..end of the log into `pipe` (then close it), and append to `fed` how
    many b"\\n" and how many bytes went in: fewer bytes than asked means the feed stopped (the
    reader closed the pipe's other end, or the log could not be read)."""
    lines = sent = 0
    try:
        with open(path, "rb", buffering=0) as f:
            f.seek(start)
            while sent < end - start:
                block = f.read(min(1 << 20, end - start - sent))
                if not block:
                    break
                view = memoryview(block)
                while view:
                    view = view[os.write(pipe, view):]
                lines += block.count(b"\n")
                sent += len(block)
    except OSError:
        pass
    finally:
        fed.append((lines, sent))
        os.close(pipe)


def line_start_after(fd: int, at: int, end: int) -> int:
    """The first line start after offset `at` - 1 in the file open as `fd` (just past the first
    b"\n" at or after `at`), or `end` when there is none before `end`."""
    while at < end:
        window = os.pread(fd, 1 << 16, at)
        if not window:
            return end
        newline = window.find(b"\n")
        if newline >= 0:
            return min(at + newline + 1, end)
        at += len(window)
    return end


def read_lines(path: Path, start: int, end: int) -> list[bytes]:
    """The complete lines between two offsets, without their newlines."""
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(end - start)
    lines = data.split(b"\n")
    return lines[:-1] if lines and lines[-1] == b"" else lines


def decode_lines(lines: list[bytes]) -> list[str | None]:
    """UTF-8 text of each line, None where a line is not valid UTF-8."""
    out: list[str | None] = []
    for raw in lines:
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            out.append(None)
    return out


def last_line(path: Path, end: int) -> bytes:
    """The last complete line before offset `end` (the byte at end - 1 is b"\n"): what follows
    the line break before it."""
    return read_tail(path, 0, end - 1).torn
