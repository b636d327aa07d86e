"""A private copy of the project to mutate, and running test files in it.

Mutants are written into the copy, never into the checkout (other people work there). The copy
is laid out the way the package is installed: `queries/` becomes `inspector/queries`, the
sample stores `inspector/samples_data`, so that `import inspector` from the copy (PYTHONPATH,
and the working directory) finds only the copy — checked when the copy is made.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".inspector", ".lock",
                                "mutants", "snapshot_report.html")
# Test runs in the copy: fewer random examples and kill trials than CI, the same tests.
RUN_ENV = {"BELIEF_EXAMPLES": "60", "CRASH_TRIALS": "20", "PYTHONDONTWRITEBYTECODE": "1",
           "HYPOTHESIS_STORAGE_DIRECTORY": ".hypothesis"}


@dataclass
class Outcome:
    """One run of test files: `killed` when a test failed (or the run broke or timed out)."""

    code: int | None                      # pytest's exit code; None when it timed out
    seconds: float
    failed: str | None = None             # the first failing test, when known
    output: str = ""
    all_failed: list[str] = field(default_factory=list)

    @property
    def killed(self) -> bool:
        return self.code != 0

    @property
    def timed_out(self) -> bool:
        return self.code is None


@dataclass
class Workspace:
    root: Path
    deselect: dict[tuple[str, ...], list[str]] = field(default_factory=dict)   # per test-file set
    statement_files: dict[tuple[str, ...], dict[str, set[str]]] = field(default_factory=dict)

    @classmethod
    def make(cls, parent: Path | None = None) -> "Workspace":
        root = Path(tempfile.mkdtemp(prefix="inspector-mutation-", dir=parent))
        for name in ("inspector", "tests", "sample_stores", "docs"):
            if (ROOT / name).exists():
                shutil.copytree(ROOT / name, root / name, ignore=IGNORE, symlinks=False)
        shutil.rmtree(root / "inspector" / "queries", ignore_errors=True)
        shutil.copytree(ROOT / "queries", root / "inspector" / "queries", ignore=IGNORE)
        (root / "queries").symlink_to(Path("inspector") / "queries")   # what tests read as ROOT/queries
        shutil.copytree(ROOT / "sample_stores", root / "inspector" / "samples_data", ignore=IGNORE)
        shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
        (root / f"{PLUGIN}.py").write_text(PLUGIN_SOURCE, encoding="utf-8")
        (root / "sitecustomize.py").write_text(SITE_SOURCE, encoding="utf-8")
        ws = cls(root)
        ws._check_imports()
        return ws

    def env(self) -> dict[str, str]:
        return {**os.environ, **RUN_ENV, "PYTHONPATH": str(self.root), "MUTANT_UNDER_TEST": ""}

    def _check_imports(self) -> None:
        code = "import inspector, inspector.queries as q; print(inspector.__file__); print(q.__file__)"
        out = subprocess.run([sys.executable, "-c", code], cwd=self.root, env=self.env(),
                             capture_output=True, text=True, check=True).stdout.split()
        if not all(Path(p).is_relative_to(self.root) for p in out):
            raise RuntimeError(f"the copy does not shadow the installed package: {out}")

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    # -- files ------------------------------------------------------------------------------

    def path(self, relative: str) -> Path:
        """A project path in the copy (queries/x.sql is inspector/queries/x.sql here)."""
        if relative.startswith("queries/"):
            return self.root / "inspector" / relative
        return self.root / relative

    def read(self, relative: str) -> str:
        return self.path(relative).read_text(encoding="utf-8")

    def write(self, relative: str, text: str) -> None:
        self.path(relative).write_text(text, encoding="utf-8")

    # -- tests ------------------------------------------------------------------------------

    def pytest(self, tests: list[str], *, timeout: float, first_failure: bool = True,
               extra_env: dict[str, str] | None = None, deselect: list[str] | None = None) -> Outcome:
        """Run test files (or node ids) in the copy; the whole process group is killed when
        `timeout` seconds pass."""
        report = self.root / f".failed-{os.getpid()}-{time.monotonic_ns()}"
        # -n 0: in one process, where PLUGIN sees every test (the project's addopts run workers).
        args = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                "-p", PLUGIN, "-W", "ignore", "--tb=line", *(["-x"] if first_failure else []), *tests]
        for node in self.deselect.get(tuple(tests), []) if deselect is None else deselect:
            args += ["--deselect", node]
        env = {**self.env(), **(extra_env or {}), "MUTATION_FAILED_FILE": str(report)}
        started = time.monotonic()
        proc = subprocess.Popen(args, cwd=self.root, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=timeout)
            code: int | None = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)      # pytest and the CLI runs it started
            out, _ = proc.communicate()
            code = None
        except BaseException:                        # stopped (ctrl+c, SIGTERM): stop it too
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        failed = report.read_text().splitlines() if report.exists() else []
        report.unlink(missing_ok=True)
        first = "timeout" if code is None else failed[0] if failed else None
        return Outcome(code, time.monotonic() - started, first, out[-4000:], failed)

    def baseline(self, tests: list[str], timeout: float = 3600) -> tuple[Outcome, list[str]]:
        """Run `tests` unmutated; the tests that fail already are deselected from then on (a
        mutant cannot be judged by a test that fails without it). Also records which test
        files run which SQL statement, in this process or in the CLI processes they start
        (`statement_files`)."""
        log = self.root / f".sql-log-{time.monotonic_ns()}"
        outcome = self.pytest(tests, timeout=timeout, first_failure=False,
                              extra_env={"MUTATION_SQL_LOG": str(log)})
        self.deselect[tuple(tests)] = outcome.all_failed
        runs: dict[str, set[str]] = {}
        if log.exists():
            for line in log.read_text(encoding="utf-8").splitlines():
                test, _, name = line.partition("\t")
                runs.setdefault(name, set()).add(test.split("::")[0])
            log.unlink()
        self.statement_files[tuple(tests)] = runs
        return outcome, outcome.all_failed

    def files_running(self, tests: list[str], statement: str) -> list[str]:
        """Which of the test files (in their order) run `statement`; all of them for a macro,
        which every store creates and other statements then use."""
        if statement.startswith("macro_"):
            return list(tests)
        runs = self.statement_files.get(tuple(tests), {}).get(statement, set())
        return [t for t in tests if t.split("::")[0] in runs]   # a node id runs what its file does


PLUGIN = "mutation_failures"
PLUGIN_SOURCE = '''"""Writes the node id of every failing test to $MUTATION_FAILED_FILE (mutation runs)."""
import os


def pytest_runtest_logreport(report):
    path = os.environ.get("MUTATION_FAILED_FILE")
    if path and report.failed:
        with open(path, "a", encoding="utf-8") as f:
            f.write(report.nodeid + "\\n")


def pytest_collectreport(report):
    pytest_runtest_logreport(report)


def pytest_runtest_setup(item):
    os.environ["MUTATION_TEST_ID"] = item.nodeid     # inherited by the CLI processes it starts
'''

SITE_SOURCE = '''"""Mutation runs only: with $MUTATION_SQL_LOG set, every process started from this copy logs
which test ($MUTATION_TEST_ID) loads which named SQL statement."""
import os

if os.environ.get("MUTATION_SQL_LOG"):
    def _log_statements():
        import inspector.store.queries as queries
        seen, path = set(), os.environ["MUTATION_SQL_LOG"]

        class Logged(dict):
            def __getitem__(self, name):
                test = os.environ.get("MUTATION_TEST_ID", "")
                if (test, name) not in seen:
                    seen.add((test, name))
                    with open(path, "a", encoding="utf-8") as f:
                        f.write(f"{test}\\t{name}\\n")
                return dict.__getitem__(self, name)

        original = queries.statements
        logged = Logged(original())

        def statements():
            return logged
        statements.__wrapped__ = getattr(original, "__wrapped__", original)   # tests call it
        statements.cache_clear = getattr(original, "cache_clear", lambda: None)
        queries.statements = statements
    _log_statements()
'''
