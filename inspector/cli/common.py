"""What every command shares: the Typer app, the common options, the operator's name, times
from the command line, opening a store, and turning an InspectorError into its one line on
stderr and its exit code (DESIGN §8: 2 bad input, 3 refused)."""

from __future__ import annotations

import getpass
import importlib.util
import os
import re
import sys
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Callable, Optional, TypeVar

import typer

from ..store.engine import duckdb      # the compiled engine, not the package's wrappers
from ..store.errors import BadInput, InspectorError
from ..store.load import Store
from ..store.logfile import set_warning_printer
from ..store.model import is_rfc3339, leap_second_instead, parse_time

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Inspect and curate an AI agent's long-term memory store.")

JSON = typer.Option(False, "--json", help="Print exactly one JSON document on stdout.")
SCOPE = typer.Option(None, "--scope", metavar="S",
                     help="Hard filter: load and show only entries inside scope S and its sub-scopes.")
NO_SCOPE = typer.Option(None, "--scope", hidden=True)
OPERATOR = typer.Option(None, "--operator", help="Who acts (else $INSPECTOR_OPERATOR, else login).")

def _say_warning(text: str) -> None:
    from .lines import say
    say(text)


set_warning_printer(_say_warning)     # a store path reaches the terminal sanitized, on one line

OPERATOR_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]*")
T = TypeVar("T")


def lazy(name: str) -> ModuleType:
    """Module `name`, run on its first attribute access (importlib.util.LazyLoader): a command
    that prints JSON never pays for importing Rich (about 15 ms of every command)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}")
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run(fn: Callable[[], T], store=None, kind: str = "read", again: bool = True) -> T:
    """Run a command's body: an InspectorError becomes its one line and exit code; so does an
    operating-system error nobody foresaw (exit 2), naming its path, else `store`, and saying
    what to do for a command of `kind`: "read", "write" (to an existing store) or "create".
    A view found damaged on the way is deleted and the body run `again`, from the log."""
    from ..store.commits import WRITTEN
    WRITTEN.clear()         # what this command writes (a process may run several: tests)
    try:
        return fn()
    except InspectorError as error:
        from .lines import say
        say(f"error: {error}")
        raise typer.Exit(error.exit_code)
    except OSError as error:
        from .lines import say
        say(os_error_line(error, kind, store))
        raise typer.Exit(2) from None
    except (KeyboardInterrupt, duckdb.InterruptException, RuntimeError) as error:
        if isinstance(error, RuntimeError) and not interrupted_query(error):
            raise
        from .lines import say
        say(interrupted_line())
        raise typer.Exit(INTERRUPTED) from None
    except (MemoryError, duckdb.OutOfMemoryException):
        from .lines import say
        say(out_of_memory_line(kind, store))
        raise typer.Exit(2) from None
    except duckdb.Error as error:
        if store is None or not damaged(error):
            raise
        return _without_the_view(fn, store, kind, error, again)


# What DuckDB says of a database file whose blocks are not what it wrote (a disk fault, a
# stray write): the view's, the only file a command reads through DuckDB.
DAMAGE = ("Corrupt database file", "does not match stored checksum")


def damaged(error: BaseException) -> bool:
    return any(words in str(error) for words in DAMAGE)


def _without_the_view(fn: Callable[[], T], store, kind: str, error: BaseException,
                      again: bool) -> T:
    """The view is derived, never needed (docs/format.md): a damaged one is deleted, said in
    the line a view that cannot be used gets, and the command runs again from the log; unless
    it wrote before it found the damage, or the view cannot be deleted, or this is the run
    again: then one line says so (exit 2)."""
    from ..store import view
    from ..store.commits import WRITTEN
    from ..store.logfile import StorePaths
    from .lines import say
    paths = StorePaths(Path(store))
    why = f"the view is damaged ({str(error).splitlines()[0]})"
    failed = view.discard(paths)
    if failed is not None:
        say(f"error: {paths.root}: {why}, and it could not be deleted ({failed.strerror}): "
            f"delete {paths.cache} and run the command again")
        raise typer.Exit(2) from None
    if WRITTEN or not again:
        wrote = f" (what it wrote is in the log: `inspector audit --log {paths.root}` lists it)" \
            if WRITTEN else ""
        say(f"error: {paths.root}: {why}; it was deleted: run the command again{wrote}")
        raise typer.Exit(2) from None
    say(f"{paths.root}: read the whole log again: {why}; it was deleted")
    return run(fn, store, kind, again=False)


INTERRUPTED = 130       # 128 + SIGINT, as a shell reports a command ctrl-c ended


def interrupted_query(error: BaseException) -> bool:
    """DuckDB 2.0 reports a query that SIGINT stopped as RuntimeError('Query interrupted')."""
    return isinstance(error, duckdb.InterruptException) or (
        type(error) is RuntimeError and str(error) == "Query interrupted")


def interrupted_line() -> str:
    """What is true after ctrl-c: what this process wrote (commits.WRITTEN), else nothing."""
    from ..store.commits import WRITTEN
    from ..store.logfile import shell_path
    if not WRITTEN:
        return "interrupted; nothing was written"
    last = WRITTEN[-1]
    if last.kind == "erasure" and last.finished:
        return (f"interrupted after the erasure was written: certificate {last.ident} "
                f"({last.root / 'certificates' / (last.ident + '.json')}); "
                f"`inspector audit --log {shell_path(last.root)}` lists its events")
    if last.kind == "erasure":
        return (f"interrupted: the erasure {last.ident} is in the log but not finished; the next "
                f"command that writes to {last.root} finishes it and writes its certificate")
    return (f"interrupted after batch {last.ident} ({last.events} events) was written; "
            f"`inspector audit --log {shell_path(last.root)}` lists it")


def out_of_memory_line(kind: str, store) -> str:
    from ..store.logfile import shell_path
    what = "error: out of memory; nothing more was done"
    if kind == "write" and store not in (None, ""):
        return (f"{what}: run `inspector audit --verify {shell_path(store)}`, then run the "
                "command again with more memory (or a smaller input)")
    return f"{what}: run the command again with more memory (or a smaller input)"


def os_error_line(error: OSError, kind: str, store) -> str:
    """The one line of an OSError: the path it names (else the store), what the system said,
    and what to do: after a failed write to a store, check its log before writing again."""
    from ..store.logfile import shell_path
    path = error.filename if error.filename not in (None, "") else store
    where = f"{path}: " if path not in (None, "") else ""
    if error.filename2:
        where = f"{where}{error.filename2}: "
    what = f"error: {where}{error.strerror or error}"
    if kind == "create":
        return f"{what}; the store was not created there: fix that or choose another path"
    if kind == "write" and store not in (None, ""):
        return (f"{what}; nothing more was done: fix that and run `inspector audit --verify "
                f"{shell_path(store)}` before writing to the store again")
    if kind == "write":
        return (f"{what}; nothing more was done: fix that and run `inspector audit --verify` "
                "on the store before writing to it again")
    return f"{what}; fix that and run the command again"


def refuse_scope(scope: Optional[str], command: str) -> None:
    if scope is not None:
        raise BadInput(f"`{command}` works on the whole store and does not take --scope; "
                       "run it without --scope")


def time_option(text: Optional[str], name: str) -> Optional[datetime]:
    if text is None:
        return None
    try:
        return parse_time(text)
    except (ValueError, OverflowError):
        if is_rfc3339(text):    # the form is right, the moment is not (Feb 30th, UTC year 0)
            raise BadInput(f"{name}: {text!r} is no real time whose UTC lies in the years "
                           "0001-9999; write e.g. 2025-03-01T04:06:55Z") from None
        if (instead := leap_second_instead(text)) is not None:
            raise BadInput(f"{name}: {text!r} is a leap second, which no time of the store can "
                           f"be; write {instead!r}") from None
        raise BadInput(f"{name}: {text!r} is not an RFC 3339 time; write e.g. 2025-03-01T04:06:55Z") from None


# A whole-log read of a log this big is announced on a terminal (it takes seconds).
ANNOUNCE_BYTES = 256 << 20


def _stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def _announce_whole_read(size: int, why: str) -> None:
    """On a terminal, say why the wait: the log is read whole (no view yet, or not current)."""
    if size < ANNOUNCE_BYTES or not _stderr_is_terminal():
        return
    from .lines import say
    say(f"note: reading the whole log ({size / 1e9:.1f} GB): "
        f"{why or 'no view of it yet'}; this takes a while")


def open_store(path: Path, scope: Optional[str] = None) -> Store:
    store = Store(path, scope=scope, on_whole_read=_announce_whole_read)
    from .lines import say
    for warning in store.state.warnings:
        if "incomplete last line" in warning or "settled an erasure" in warning \
                or "on a read-only file system" in warning:
            say(f"note: {warning}")
        elif ": read the whole log again: " in warning:
            say(warning)        # as docs/format.md shows it: "STORE: read the whole log again: why"
    return store


def where(store: Store) -> str:
    return f"{store.root}" + (f" inside scope {store.scope!r}" if store.scope is not None else "")


def operator_name(given: Optional[str]) -> str:
    """--operator, else $INSPECTOR_OPERATOR, else the login name."""
    name = given if given is not None else (os.environ.get("INSPECTOR_OPERATOR")
                                             or getpass.getuser())
    if not OPERATOR_NAME.fullmatch(name or ""):
        raise BadInput(f"operator name {name!r} must be letters, digits, . _ @ - (an identifier, "
                       "never content); pass --operator NAME")
    from ..store.writes import personal_data_in
    named = personal_data_in(name)
    if named is not None:    # the actor is in every event's envelope, which outlives erasure
        raise BadInput(f"operator name {name!r} holds personal data ({named}): it stays in the "
                       "log and in erasure certificates after every erasure; use an opaque "
                       "identifier (e.g. a staff id)")
    return name
