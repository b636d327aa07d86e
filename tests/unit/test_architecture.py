"""The architecture a newcomer can see: the import contracts in pyproject.toml hold, the core
and the command line import without Textual, and the screens are what their specs say."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_hold():
    linter = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(linter)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "7 kept, 0 broken" in done.stdout


def test_core_and_cli_do_not_import_textual():
    code = ("import sys, inspector.store.load, inspector.store.beliefs, inspector.store.ingest, "
            "inspector.store.audit, inspector.store.registry, inspector.cli; inspector.cli.load(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT).stdout.strip()


def test_each_command_is_listed_with_the_module_that_registers_it():
    from inspector import cli

    for module in cli.MODULES:
        # Each module alone, in a fresh interpreter: what it registers on the one app.
        found = _python(f"import inspector.cli.{module}; from inspector.cli.common import app; "
                        "print(sorted([c.name or c.callback.__name__ for c in app.registered_commands]"
                        " + [g.name for g in app.registered_groups]))")
        assert found == str(sorted(c for c, m in cli.COMMANDS.items() if m == module)), module
    assert list(dict.fromkeys(cli.COMMANDS.values())) == list(cli.MODULES)


def test_a_read_command_line_imports_neither_the_gate_nor_the_actions():
    code = ("import sys; sys.argv = ['inspector', 'show', '--help']; from inspector import cli\n"
            "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('inspector.store.gate', 'inspector.store.registry', "
            "'inspector.store.detect.shape', 'inspector.store.ingest', 'inspector.cli.read') "
            "if m in sys.modules))")
    assert _python(code).splitlines()[-1] == "['inspector.cli.read']"


def test_screens_come_from_their_specs_in_tab_order():
    from inspector.tui.app import InspectorApp
    from inspector.tui.screens import specs

    assert [s.name for s in specs()] == ["overview", "beliefs", "review", "conflicts", "quarantine",
                                         "findings", "audit", "erasure", "diff"]
    assert [s.order for s in specs()] == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    assert list(InspectorApp.MODES) == [s.name for s in specs()]
    digits = {b.key: b.action for b in InspectorApp.BINDINGS if b.id and b.id.startswith("screen.")}
    assert digits == {str(s.order): f"switch_mode('{s.name}')" for s in specs()}
    assert [s.name for s in specs() if s.count] == ["beliefs", "review", "conflicts", "quarantine",
                                                     "findings", "audit"]


def test_every_screen_action_is_a_registry_action_bound_by_id():
    from inspector.store.registry import ACTIONS
    from inspector.tui.screens import screen_classes, specs

    classes = screen_classes()
    for spec in specs():
        bound = {b.id: b.key for b in classes[spec.name].BINDINGS if b.id and b.id.startswith("act.")}
        assert bound == {f"act.{n}": ACTIONS[n].key for n in spec.actions}, spec.name


def test_read_only_removes_exactly_the_dangerous_actions():
    from inspector.store.registry import ACTIONS, available

    assert [a.name for a in available(read_only=False)] == list(ACTIONS)
    assert [a.name for a in available(read_only=True)] == [a.name for a in ACTIONS.values()
                                                          if not a.dangerous]
    assert all(a.dangerous for a in ACTIONS.values())    # every curation action writes the log


FEED = ('{"id": "N1", "entity": "user:1", "attribute": "city", "value": "Lyon", '
        '"kind": "observation", "source": "user:1", "authority": 2, '
        '"observed_at": "2026-11-30T00:00:00Z", "scope": "tenant:a"}\n')


def _command_lines(tmp_path, argvs: list[list[str]], before: str, after: str):
    """`inspector ARGV` through cli.main for each of argvs, in one fresh interpreter ("STORE"
    and "FEED" stand for a new store and a one-line feed): `before` runs first, `after`
    prints what the test checks; each command must succeed. (process, store path)"""
    store, feed = tmp_path / "s", tmp_path / "feed.jsonl"
    feed.write_text(FEED)
    argvs = [[{"STORE": str(store), "FEED": str(feed)}.get(a, a) for a in argv] for argv in argvs]
    code = ("import sys, io, contextlib; from inspector import cli\n" + before +
            f"for argv in {argvs!r}:\n"
            "    sys.argv = ['inspector', *argv]\n"
            "    try:\n        with contextlib.redirect_stdout(io.StringIO()):\n            cli.main()\n"
            "    except SystemExit as e:\n        assert not e.code, e.code\n" + after)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return done, store


def test_a_command_line_prepares_its_connection_ahead_and_a_write_for_people_needs_no_rich(tmp_path):
    """`ingest` without --json: the store's connection was prepared while the line was parsed
    (connection.prepare_ahead, taken by the Store), and its summary lines need no Rich."""
    done, store = _command_lines(
        tmp_path, [["init", "STORE"], ["ingest", "STORE", "FEED", "--actor", "agent:1"]],
        before="from inspector.store import connection\n"
               "taken = []; prepared = connection.prepared\n"
               "connection.prepared = lambda s: taken.append(bool(connection._ahead)) or prepared(s)\n",
        after="print(taken, sorted(m for m in sys.modules if m.split('.')[0] == 'rich'))")
    assert done.stdout.strip() == "[True] []"
    assert done.stderr == (f"created store {store}\n"
                           "written 1, held 0, updated 0, unchanged 0, rejected lines 0\n")


def test_commands_run_on_the_duckdb_engine_module_not_the_package_wrappers(tmp_path):
    """store/engine.py: a command imports DuckDB's compiled engine (``_duckdb``) and none of
    the package's Python wrappers (about 50 ms a process); what the store uses of it are the
    package's own objects."""
    import duckdb

    from inspector.store.engine import duckdb as engine

    assert engine.__name__ == "_duckdb"
    for name in ("connect", "DuckDBPyConnection", "Error", "IOException"):
        assert getattr(engine, name) is getattr(duckdb, name), name
    assert engine.__version__ == duckdb.__duckdb_version__     # the engine's (view.py keys on it)
    done, _ = _command_lines(
        tmp_path, [["init", "STORE"], ["ingest", "STORE", "FEED", "--actor", "agent:1"],
                   ["show", "STORE", "N1", "--json"], ["held", "STORE", "--json"]],
        before="", after="print('_duckdb' in sys.modules, "
                         "sorted(m for m in sys.modules if m.split('.')[0] == 'duckdb'))")
    assert done.stdout.strip() == "True []"
