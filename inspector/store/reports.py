"""Incident reports on disk: writing one under `<store>/reports/` (or elsewhere), and finding
the reports that mention given entries, which erasure deletes (DESIGN §6, §7b).

Every report the tool writes carries, on one line near its top, the ids of every entry whose
data it shows (`<!-- inspector-report mentions: [...] -->`, JSON with `<`, `>` and `&`
escaped so that the comment cannot be closed early). `mentioning` reads that line, so an id
is matched exactly ("M1" never matches a report about "M10" only); a file under reports/
without the line (put there by hand) is matched on the id's plain and HTML-escaped text.
An erased data subject is looked for in the text of every file, in any form a report writes it
(`_written`).

A report is written only under the store's lock and only while the log is still the one it was
built from (`log_unchanged`): an erasure that completed between the load and the write replaced
the log, and the report would hold what it erased, in reports/ after the erasure looked there,
or at an --out path written after the erasure was done.
"""

from __future__ import annotations

import fcntl
import html
import json
import os
import re
import secrets
import stat
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from . import escapes, jsonsafe, view
from .errors import BadInput, Stale
from .files import FILE_MODE, refuse_link, write_file, write_new
from .logfile import StorePaths, check_writable
from .queries import sql

REPORTS = "reports"
MANIFEST = "<!-- inspector-report mentions: "
MANIFEST_END = " -->"


def reports_dir(paths: StorePaths) -> Path:
    return paths.root / REPORTS


def manifest_line(ids) -> str:
    """The line that names the entries a report shows (see the module docstring)."""
    text = json.dumps(sorted(set(ids)), ensure_ascii=True)
    for char, escape in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(char, escape)
    return f"{MANIFEST}{text}{MANIFEST_END}"


def report_name(until: datetime, extension: str) -> str:
    """`report-20250301T041000Z-1a2b3c.html`: the window's end and a random part, no content."""
    end = until.astimezone(timezone.utc)
    stamp = f"{end.year:04d}{end:%m%dT%H%M%SZ}"      # %Y writes year 1 as "1", not "0001"
    return f"report-{stamp}-{secrets.token_hex(3)}.{extension}"


@contextmanager
def log_unchanged(paths: StorePaths, mark: view.Mark) -> Iterator[None]:
    """Around writing a report built from the log as `mark` describes it: the store's lock held
    shared (an erasure, which holds it exclusive, waits until the file is written, then finds
    and deletes it; other readers do not wait), and the log still that one, grown only by
    appends (an append erases nothing). Else Stale (exit 3) and nothing is written. Refusing
    rather than building the report again: a rebuild takes as long as the first build and can
    race again; the operator runs the command again. Where the lock file cannot be opened (a
    read-only store, on which nothing can erase) the log is still checked."""
    fd = _lock(paths)
    try:
        try:
            why = view.proven(paths, mark, reader="the report")
        except OSError as exc:
            why = f"the log cannot be read ({exc.strerror or exc})"
        if why is not None:
            raise Stale(f"store changed; nothing was written: {why} since the report read it; "
                        "run the report again")
        yield
    finally:
        if fd is not None:
            os.close(fd)            # (the lock goes with the descriptor)


def _lock(paths: StorePaths) -> int | None:
    """The store's lock file open and locked shared, or None where it cannot be opened."""
    for flags in (os.O_RDWR | os.O_CREAT, os.O_RDONLY):
        try:
            fd = os.open(paths.lock, flags | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
        except OSError:
            continue
        fcntl.flock(fd, fcntl.LOCK_SH)
        return fd
    return None


def write_in_store(paths: StorePaths, name: str, data: bytes) -> Path:
    """A new report file `reports/<name>` (directory 0700, file 0600, created without
    following links and without replacing a file); BadInput when the store or reports/ may
    not be written."""
    check_writable(paths)
    refuse_link(reports_dir(paths), directory=True)
    try:
        return write_new(reports_dir(paths), name, data)
    except FileExistsError:
        raise BadInput(f"{reports_dir(paths) / name} already exists; run the report again") from None
    except OSError as exc:      # a read-only store, a full disk: the store's log is untouched
        raise BadInput(f"{reports_dir(paths)}: cannot write the report there: "
                       f"{exc.strerror or exc}; fix that or give --out FILE elsewhere (no report "
                       "was written)") from None


def write_elsewhere(path: Path, data: bytes) -> Path:
    """A new report file at `path` (0600, never through a link, never over a file)."""
    if not path.parent.is_dir():
        raise BadInput(f"--out {path}: {path.parent} is not a directory; create it first")
    try:
        write_file(path, data)
    except FileExistsError:
        raise BadInput(f"--out {path} already exists (or is a link); choose a new file name") from None
    except OSError as exc:      # /proc, a read-only or full file system: the store is untouched
        raise BadInput(f"--out {path}: cannot write it there: {exc.strerror or exc}; choose "
                       "another file (no report was written)") from None
    return path


def in_reach(paths: StorePaths, path: Path) -> bool:
    """Whether `path` lies under <store>/reports/, where erasure looks for reports."""
    try:
        path.resolve().relative_to(reports_dir(paths).resolve())
    except ValueError:
        return False
    return True


def mentioning(paths: StorePaths, ids, names=()) -> list[Path]:
    """The regular files under <store>/reports/ (links neither followed nor returned) that
    mention any of `ids`, or whose text holds any of `names` (an erased data subject) as a
    report writes it, sorted. BadInput when reports/ itself is a link.
    A name is looked for in the text, whatever the manifest lists: a report shows names of
    entries it does not list (the scope of a belief change is a context, which the erased
    entries' scope may be while the beliefs shown are another entry's: helper-73)."""
    wanted, texts = set(ids), [_written(name) for name in dict.fromkeys(names) if name]
    root = reports_dir(paths)
    refuse_link(root, directory=True)
    if not (wanted or texts) or not root.is_dir():
        return []
    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in files:
            path = Path(folder) / name
            if stat.S_ISREG(os.lstat(path).st_mode) and _mentions(path, wanted, texts):
                found.append(path)
    return sorted(found)


def _mentions(path: Path, wanted: set[str], texts: list[re.Pattern[str]]) -> bool:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read()
    if texts:
        text = data.decode("utf-8", errors="replace")
        if any(form.search(text) for form in texts):
            return True
    listed = _manifest(data)
    if listed is not None:
        return not wanted.isdisjoint(listed)
    return any(form in data for i in wanted for form in _forms(i))


MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~!#])")


def markdown_text(text: str) -> str:
    """Text as the Markdown report writes it outside code: HTML-escaped (a Markdown viewer
    renders raw HTML), Markdown's own signs behind a backslash (report/markdown.py)."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def _written(name: str) -> re.Pattern[str]:
    """A name in any form a report can write it. A writer shows a text through the sanitizer
    (present/text.py: a code point escaped, as `\\u200b`, or not, by the output's encoding and
    the text around it; a backslash doubled or not, by the character after it), then HTML-
    or Markdown-escapes it, or writes it as a Markdown code span, which may begin or end inside
    the name (a link); and a message may quote the name with repr() or as JSON first, whose
    escapes the sanitizer escapes again (`\\\\u200b`). The forms of each character are
    alternatives; a run of backslashes is one count (each is written as 1 to 8), so that a
    name of many backslashes costs no more to look for than one."""
    parts = []
    for run in re.findall(r"\\+|[^\\]", name):
        if run[0] == "\\":
            parts.append(rf"(?:\\`?){{{len(run)},{8 * len(run)}}}")
        else:
            parts.append(_one_of(_CODE_SPAN.join(map(_rendered, source)) for source in _quoted(run)))
    return re.compile(_CODE_SPAN.join(parts))


_CODE_SPAN = "`?"        # where a Markdown code span may begin or end


def _quoted(char: str) -> set[str]:
    """A character as a message may quote it before the sanitizer sees it."""
    return {char, repr(char)[1:-1], json.dumps(char, ensure_ascii=False)[1:-1],
            *(("\\'",) if char == "'" else ())}


def _rendered(char: str) -> str:
    """The forms the sanitizer and then a report format may write `char` in, as a pattern. Only
    a printable ASCII character other than the space and the backslash is never escaped."""
    drawn = {char} if "!" <= char <= "~" and char != "\\" else {char, escapes.escape(char)}
    return _one_of(_CODE_SPAN.join(_one_of(re.escape(form) for form in
                                           {c, html.escape(c, quote=True), markdown_text(c)})
                                   for c in shown) for shown in drawn)


def _one_of(patterns) -> str:
    return "(?:" + "|".join(sorted(set(patterns))) + ")"


def _manifest(data: bytes) -> set[str] | None:
    start = data.find(MANIFEST.encode())
    if start < 0:
        return None
    end = data.find(MANIFEST_END.encode(), start + len(MANIFEST))
    if end < 0:
        return None
    try:
        listed = json.loads(data[start + len(MANIFEST):end])
    except (ValueError, RecursionError):     # a hand-edited manifest: search the bytes instead
        return None
    if not isinstance(listed, list) or not all(isinstance(i, str) for i in listed):
        return None
    return set(listed)


def _forms(memory_id: str) -> set[bytes]:
    return {memory_id.encode(), html.escape(memory_id, quote=True).encode()}


def masking_fields(con, ids, values: bool = False) -> dict[str, dict]:
    """What decides, besides the value, whether an entry's value is shown masked to a person
    (held as secret, marked secret): {id: {"held_reason", "sensitivity"}} for loaded entries,
    with "value" too when `values`. For reports and the command line's human output."""
    rows = con.execute(sql("masking_fields"), {"ids": list(ids)}).fetchall()
    return {m: {"held_reason": held_reason, "sensitivity": sensitivity,
                **({"value": _stored_value(value)} if values else {})}
            for m, held_reason, sensitivity, value in rows}


def _stored_value(text: str | None):
    """A loaded value, read without the stack: a malformed entry's may nest thousands deep."""
    return None if text is None else jsonsafe.loads_stored(text)
