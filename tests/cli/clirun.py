"""Run the installed `inspector` command as a user would and read its JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    @property
    def json(self):
        return json.loads(self.stdout)


def inspector(*args: str, env: dict | None = None, stdin: str | None = None,
              subprocess_run: bool | None = None) -> Result:
    """Run a command as a user would. In-process through Typer's CliRunner by default (fast);
    as a real `python -m inspector` subprocess for the JSON contract and exit-code tests
    (subprocess_run=True, or INSPECTOR_TEST_SUBPROCESS=1 to run every CLI test that way)."""
    if subprocess_run is None:
        subprocess_run = os.environ.get("INSPECTOR_TEST_SUBPROCESS") == "1"
    environment = {"COLUMNS": "100", **(env or {})}
    if subprocess_run:
        proc = subprocess.run([sys.executable, "-m", "inspector", *map(str, args)],
                              capture_output=True, text=True, env={**os.environ, **environment},
                              input=stdin, timeout=120)
        return Result(proc.returncode, proc.stdout, proc.stderr)
    return _in_process([str(a) for a in args], environment, stdin)


def _in_process(args: list[str], env: dict, stdin: str | None) -> Result:
    from typer.testing import CliRunner

    from inspector.cli import app
    from inspector.store import logfile

    logfile._warned.clear()            # a warning is once per process: here, once per command
    result = CliRunner().invoke(app, args, env=env, input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception          # a traceback is a bug: show it as one
    return Result(result.exit_code, result.stdout, result.stderr)
