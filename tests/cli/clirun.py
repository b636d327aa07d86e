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


def inspector(*args: str, env: dict | None = None, stdin: str | None = None) -> Result:
    proc = subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], capture_output=True,
                          text=True, env={**os.environ, "COLUMNS": "100", **(env or {})}, input=stdin,
                          timeout=120)
    return Result(proc.returncode, proc.stdout, proc.stderr)
