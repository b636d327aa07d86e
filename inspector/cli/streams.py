"""The standard streams as every command writes them, whatever they are.

- A stdout whose encoding cannot hold every code point (ASCII, Latin-1) still takes the whole
  output: untrusted text escaped by the sanitizer, the tool's own symbols (✓ ⚠ …) as
  backslash escapes, never a UnicodeEncodeError.
- A stdout that cannot be written (closed, a full disk) ends the command with one line on
  stderr and exit 2; a reader that went away (a broken pipe: `| head -1`) ends it quietly with
  141, the status a shell gives a process SIGPIPE ended. Never 1, which means a failed check.
"""

from __future__ import annotations

import codecs
import errno
import io
import os
import sys
from typing import Any

BROKEN_PIPE_EXIT = 128 + 13        # 128 + SIGPIPE, as `yes | head -1` leaves it
OUTPUT_FAILED_EXIT = 2


class OutputFailed(Exception):
    """Writing stdout failed. Not an OSError: Click ends a broken pipe itself, with exit 1."""

    def __init__(self, error: OSError):
        super().__init__(str(error))
        self.error = error


class _Closed(io.TextIOBase):
    """Stands in for a stdout the command was started without (`>&-`): writing fails."""

    encoding = "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "it is closed")


class _Stdout:
    """sys.stdout, whose failure to write is an OutputFailed."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as error:
            raise OutputFailed(error) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            raise OutputFailed(error) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def prepare() -> None:
    """Set the streams up before a command runs (`inspector.cli.main`)."""
    _occupy_closed_descriptors()
    if sys.stderr is None:          # nowhere to say anything: the exit code still tells
        sys.stderr = open(os.devnull, "w")
    stdout = sys.stdout if sys.stdout is not None else _Closed()
    encoding = getattr(stdout, "encoding", None)
    if encoding and not codecs.lookup(encoding).name.startswith("utf"):
        from ..present.text import set_output_encoding
        set_output_encoding(encoding)
        if hasattr(stdout, "reconfigure"):
            stdout.reconfigure(errors="backslashreplace")
    sys.stdout = _Stdout(stdout)


def _occupy_closed_descriptors() -> None:
    """Open /dev/null on whichever of descriptors 0-2 is closed, so that no file the command
    opens (the log, the lock) becomes its stdout or stderr."""
    while True:
        try:
            for fd in (0, 1, 2):
                os.fstat(fd)
            return
        except OSError:
            if os.open(os.devnull, os.O_RDWR) > 2:     # cannot happen: one of 0-2 was free
                return


def finish(failed: OutputFailed) -> int:
    """The exit status of a command whose output failed; says why unless the reader left."""
    _discard_stdout()
    if isinstance(failed.error, BrokenPipeError):
        return BROKEN_PIPE_EXIT
    from .lines import say
    say(f"error: cannot write to standard output: {failed.error.strerror or failed.error}; "
        "the output is lost: give the command an output it can write to")
    return OUTPUT_FAILED_EXIT


def _discard_stdout() -> None:
    """Point descriptor 1 at /dev/null: what is still buffered goes there at exit, instead of
    failing again as the interpreter's own error."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
