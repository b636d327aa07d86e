"""The command line: Typer commands that call the core and print its answers (one JSON
document with --json, sanitized tables without). Each module registers its commands on the
one app in `common`; the TUI is imported only by `open` and `demo` when they run.

`main` imports only the module of the command its line names: `show` need not import the
write gate, the action registry or the importers (about a fifth of a warm command's time on a
small store). `app` (for tests and callers in Python) and any other command line (`--help`, a
misspelt command) register every command, in MODULES order, which is the order `--help` lists.
"""

from __future__ import annotations

import os
import sys
from importlib import import_module

MODULES = ("write", "read", "actions", "policy", "tui", "importers")
# Each command's module; tests/cli/test_cli_modules.py checks it against what each registers.
COMMANDS = {
    "init": "write", "ingest": "write",
    "beliefs": "read", "show": "read", "held": "read", "conflicts": "read", "lineage": "read",
    "scan": "read", "diff": "read", "audit": "read", "report": "read",
    "approve": "actions", "reject": "actions", "quarantine": "actions", "release": "actions",
    "retract": "actions", "expire": "actions", "revert": "actions", "erase": "actions",
    "policy": "policy", "open": "tui", "demo": "tui", "import": "importers",
}


def load(command: str | None = None):
    """The app, with the commands of `command`'s module registered (all when it is None or
    not a command)."""
    module = COMMANDS.get(command) if command is not None else None
    for name in (module,) if module else MODULES:
        import_module(f"{__name__}.{name}")
    from .common import app
    return app


def __getattr__(name: str):
    if name == "app":
        return load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The commands that open a store: their line starts preparing its connection first.
OPENS_STORE = frozenset(c for c, m in COMMANDS.items() if m in ("read", "actions", "write")) - {"init"}


def main() -> None:
    """The entry point; ctrl-c at any point of it is one line and exit 130 (see `_main`).
    Whatever the process creates is its owner's alone (umask 077): the files it opens itself
    are 0600 anyway, but DuckDB's write-ahead log of a view being written took the umask's
    mode, 0644 under the usual 022 (helper-61: `.view.duckdb.tmp-….wal` left by a killed
    erase)."""
    os.umask(0o077)
    try:
        _main()
    except KeyboardInterrupt:           # before a command's body runs, or after its output
        from .common import INTERRUPTED, interrupted_line
        from .lines import say
        say(interrupted_line())
        raise SystemExit(INTERRUPTED) from None
    except Exception as exc:            # MemoryError, or DuckDB's (not imported here for it)
        if not isinstance(exc, MemoryError) and type(exc).__name__ != "OutOfMemoryException":
            raise
        _out_of_memory()


def _out_of_memory() -> None:
    """Out of memory outside a command's body (`common.run` says it inside): one line, exit 2,
    never exit 1, which `scan --fail-on` and `audit` keep for a check that failed."""
    from .common import out_of_memory_line
    from .lines import say
    command = sys.argv[1] if len(sys.argv) > 1 else None
    say(out_of_memory_line("write" if command in WRITERS else "read", None))
    raise SystemExit(2) from None


def _main() -> None:
    """The entry point. Every error a command foresees is its own line (`common.run`); an
    operating-system error nobody foresaw is one line too, never a traceback; so is an output
    that cannot be written (`streams`)."""
    undecodable = _undecodable(sys.argv[1:])
    if undecodable:
        from .lines import say
        say(f"error: {undecodable} is not valid UTF-8: give it in UTF-8 (a UTF-8 terminal, or "
            "LANG=C.UTF-8); nothing was done")
        raise SystemExit(2)
    command = sys.argv[1] if len(sys.argv) > 1 else None
    if command in OPENS_STORE and "--help" not in sys.argv:
        from ..store.connection import prepare_ahead
        prepare_ahead()
    from . import streams
    streams.prepare()
    app = load(command)
    try:
        try:
            code = _run_app(app)
        finally:
            sys.stdout.flush()      # the output's last part: its failure is this command's
        if code:
            raise SystemExit(code)
    except streams.OutputFailed as failed:
        raise SystemExit(streams.finish(failed)) from None
    except OSError as exc:
        from .common import os_error_line
        from .lines import say
        say(os_error_line(exc, "write" if command in WRITERS else "read",
                          _store_argument(sys.argv[2:])))
        raise SystemExit(2) from None


def _run_app(app) -> int:
    """Run the command line; return its exit code. A usage error (a missing argument, an
    unknown option or command, a value of the wrong type) is one line on stderr, exit 2, like
    every other error, not Typer's box of usage and help (helper-61)."""
    import typer.core
    # the click Typer runs on: vendored as typer._click in recent Typers, the click package
    # before (typer.Abort is the Abort of either)
    exceptions = (getattr(typer.core, "_click", None) or getattr(typer.core, "click")).exceptions
    try:
        code = app(standalone_mode=False)
    except exceptions.UsageError as exc:
        from .lines import say
        where = exc.ctx.command_path if exc.ctx is not None else "inspector"
        message = exc.format_message().rstrip(".")
        if isinstance(exc, exceptions.NoSuchOption):
            message += _dash_hint(exc.option_name)
        if message:                     # none: a group named alone, whose help was printed
            say(f"error: {message}; see `{where} --help`; nothing was done")
        return exc.exit_code
    except typer.Abort:                 # end of input at a prompt
        from .lines import say
        say("error: aborted; nothing was done")
        return 1
    return code if isinstance(code, int) and not isinstance(code, bool) else 0


def _dash_hint(option: str) -> str:
    """For an unknown option that is the start of an argument given: an id or a value that
    begins with '-' is read as options unless it follows `--` (an entry's id may be `-x1`)."""
    import re
    given = next((a for a in sys.argv[2:] if a.startswith(option) and a != "--"), None)
    if given is None or re.fullmatch(r"--[a-z][a-z0-9-]*(=.*)?", given, re.S):
        return ""                       # a mistyped long option, not an id
    return f" (if {given} is an id or a value, put it after `--`: `... -- {given}`)"


def _store_argument(args: list[str]) -> str | None:
    """The command's first positional argument, which is its STORE, when no option precedes it."""
    return args[0] if args and not args[0].startswith("-") else None


# The commands that may have written to a store when an OSError reaches `main`.
WRITERS = frozenset(c for c, m in COMMANDS.items() if m == "actions") | {"ingest"}


def _undecodable(args: list[str]) -> str | None:
    """Which argument the terminal gave in bytes that are not UTF-8 (Python keeps each such
    byte as a lone surrogate), unless it names an existing file: such text cannot be written
    to the log, a certificate or DuckDB, and a reason or actor written in it would leave a
    line no reader takes."""
    for i, arg in enumerate(args):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            if os.path.exists(arg):
                continue
            code = ord(arg[exc.start])
            byte = f" (byte 0x{code - 0xDC00:02x})" if 0xDC80 <= code <= 0xDCFF else ""
            if arg.startswith("--") and "=" in arg:
                return f"the value of {arg.split('=', 1)[0]}{byte}"
            if i and args[i - 1].startswith("--"):
                return f"the value of {args[i - 1]}{byte}"
            return f"argument {i + 1}{byte}"
    return None
