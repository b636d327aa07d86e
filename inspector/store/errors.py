"""Errors a user can hit, each with the exit code DESIGN §8 gives it."""

from __future__ import annotations


class InspectorError(Exception):
    """A one-line message that says what is wrong and what to do."""

    exit_code = 2


class BadInput(InspectorError):
    """Bad usage or bad input: a malformed log line, a bad feed line, an unknown id."""

    exit_code = 2


class Refused(InspectorError):
    """An action that may not be applied; nothing was written."""

    exit_code = 3


class Stale(Refused):
    """The log changed since the plan was made, in a way that alters what was reviewed: the
    plan must be made and reviewed again."""


class WriteFailed(InspectorError):
    """Writing to the store failed (a full disk, an I/O error): one line, nothing left behind."""

    exit_code = 2


class LogProblem(BadInput):
    """A log line that stops loading: names its line number and seq."""

    def __init__(self, line: int, seq: int | None, reason: str, more: int = 0, store: str = "STORE"):
        self.line, self.seq, self.reason, self.more = line, seq, reason, more
        where = f"line {line}" + (f" (seq {seq})" if seq is not None else "")
        extra = f" (and {more} more bad line{'s' if more != 1 else ''})" if more else ""
        super().__init__(f"events.jsonl {where}: {reason}{extra}; nothing was loaded: "
                         f"run `inspector audit --verify {store}` for the full report")


class LogReplaced(Stale):
    """The log file was replaced (an erasure or a rollback renamed another into place) while
    it was being read, so what was read may mix two files: the read starts again, once."""

    def __init__(self, store: str = "STORE"):
        super().__init__(f"{store}: the log was replaced while it was read (an erasure or a "
                         "rollback); run the command again")
