"""Python mutants through mutmut, run in the private copy.

mutmut generates the mutants of one module and runs each against the tests that reach the
mutated function in-process (its own coverage record); a test that reaches it only through a
subprocess (the CLI tests run `python -m inspector`) is not in that record. So every mutant
mutmut leaves alive (survived, no tests, suspicious) is run again against the module's whole
test files, with the mutant switched on by MUTANT_UNDER_TEST in the pytest process and in the
CLI processes it starts: only a mutant that outlives that too is a survivor.

Raise statements are not mutated (`do_not_mutate_patterns`): a mutant there changes only the
wording of an error message, which the tests pin where it is contract, not everywhere.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from targets import Target, equivalent_py
from workspace import Outcome, Workspace

ALIVE = {"survived", "no tests", "suspicious", "not checked", "segfault"}
RESULT = re.compile(r"^\s+(\S+): (.+)$")


@dataclass
class PyMutant:
    name: str
    mutmut_status: str
    status: str = ""                   # killed, timeout, survived
    killed_by: str | None = None
    diff: str = ""
    why_equivalent: str = ""


def mutmut_command() -> list[str]:
    found = shutil.which("mutmut", path=str(Path(sys.executable).parent))
    if found is None:
        raise SystemExit("mutmut is not installed: pip install -e '.[test]' (or pip install mutmut)")
    return [found]


def configure(ws: Workspace, target: Target, tests: list[str], failing: list[str],
              timeout: float, fresh: bool = True) -> None:
    deselect = [arg for node in failing for arg in ("--deselect", node)]
    section = {
        "source_paths": ["inspector"],
        "only_mutate": list(target.files),
        "pytest_add_cli_args_test_selection": tests,
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-W", "ignore", *deselect],
        "also_copy": ["tests", "sample_stores", "docs", "mutation_failures.py"],
        "do_not_mutate_patterns": [r"^\s*raise \w"],
        "timeout_multiplier": 4.0,
        "timeout_constant": max(1.0, timeout / 8),
    }
    base = (ws.root / "pyproject.toml").read_text(encoding="utf-8").split("\n[tool.mutmut]")[0]
    lines = [f"{key} = {json.dumps(value)}" for key, value in section.items()]
    (ws.root / "pyproject.toml").write_text(base + "\n[tool.mutmut]\n" + "\n".join(lines) + "\n",
                                            encoding="utf-8")
    if fresh:
        shutil.rmtree(ws.root / "mutants", ignore_errors=True)


def _mutmut(ws: Workspace, *args: str, timeout: float) -> subprocess.CompletedProcess:
    """Run mutmut in the copy; it and the workers it forks are killed on a timeout or a stop."""
    proc = subprocess.Popen([*mutmut_command(), *args], cwd=ws.root, env=ws.env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def results(ws: Workspace) -> dict[str, str]:
    done = _mutmut(ws, "results", "--all", "true", timeout=600)
    return {m.group(1): m.group(2).strip() for m in map(RESULT.match, done.stdout.splitlines()) if m}


def run(ws: Workspace, target: Target, *, max_mutants: int, timeout: float, seed: int, jobs: int,
        log) -> list[PyMutant]:
    tests = target.test_files()
    base, failing = ws.baseline(tests)
    log(f"  baseline: {len(failing)} failing test(s) deselected ({base.seconds:.0f} s)")
    configure(ws, target, tests, failing, timeout)
    probe = _mutmut(ws, "run", "--max-children", str(jobs), "__no_such_mutant__", timeout=7200)
    names = sorted(results(ws))
    if not names:
        raise RuntimeError(f"mutmut made no mutants of {target.name}:\n{probe.stdout[-3000:]}"
                           f"{probe.stderr[-3000:]}")
    # Tests that read the source (the checks that every sql("…") name exists, say) see every
    # mutant at once in mutmut's copy and fail there with none switched on: leave them out.
    mutants_ws = Workspace(ws.root / "mutants")
    _, in_copy = mutants_ws.baseline(tests)
    extra = sorted(set(in_copy) - set(failing))
    if extra:
        log(f"  {len(extra)} test(s) fail in mutmut's copy with no mutant on, deselected: "
            + ", ".join(extra))
        failing = failing + extra
        configure(ws, target, tests, failing, timeout, fresh=False)
    ws.deselect[tuple(tests)] = failing
    chosen = sorted(random.Random(seed).sample(names, min(max_mutants, len(names))))
    log(f"  {len(names)} mutants, running {len(chosen)}")
    _mutmut(ws, "run", "--max-children", str(jobs), *chosen,
            timeout=max(600.0, timeout * len(chosen)))
    statuses = results(ws)
    mutants = [PyMutant(name, statuses.get(name, "not checked")) for name in chosen]
    mutants_ws.deselect[tuple(tests)] = failing
    # a rerun runs the whole test files: give it what the baseline took, with room for a busy
    # machine, or a slow run would count as a caught mutant
    limit = max(timeout, base.seconds * 3 + 30)
    for mutant in mutants:
        if mutant.mutmut_status in ("killed", "caught by type check"):
            mutant.status = "killed"
        elif mutant.mutmut_status == "timeout":
            mutant.status = "timeout"
        elif known := equivalent_py(mutant.name, _show(ws, mutant.name)):
            mutant.status, mutant.why_equivalent = "equivalent", known.why
            log(f"    {mutant.name}: equivalent ({known.why})")
        else:
            _rerun(mutants_ws, mutant, tests, limit)
            log(f"    {mutant.name}: mutmut {mutant.mutmut_status} -> {mutant.status}"
                f"{f' by {mutant.killed_by}' if mutant.killed_by else ''}")
        if mutant.status in ("survived", "equivalent"):
            mutant.diff = _show(ws, mutant.name)
        if mutant.status == "survived":
            log("\n".join("      " + line for line in mutant.diff.splitlines()[1:]))
    return mutants


def _show(ws: Workspace, name: str) -> str:
    return _mutmut(ws, "show", name, timeout=600).stdout


def _rerun(ws: Workspace, mutant: PyMutant, tests: list[str], timeout: float) -> None:
    outcome: Outcome = ws.pytest(tests, timeout=timeout, extra_env={"MUTANT_UNDER_TEST": mutant.name})
    if outcome.timed_out:
        mutant.status = "timeout"
    elif outcome.killed:
        mutant.status, mutant.killed_by = "killed", outcome.failed or f"pytest exit {outcome.code}"
    else:
        mutant.status = "survived"
