"""An import stopped after it wrote its staging directory (`.NAME.importing-XXXXXXXX/`, which
holds every value it read): SIGTERM and SIGHUP remove it on the way out; what SIGKILL leaves
the next import in the same directory removes, and says so; one a live import holds, or one
with no lock to tell, is never removed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from importkit import FIXTURES, listing
from inspector.importers.mem0 import import_mem0

SOURCE = FIXTURES / "mem0_history.db"
# Runs an import that sends itself a signal when its log is written and not yet renamed into
# place (where the import loads the staging store once to check it).
STOPPED_IMPORT = """
import os, sys
import inspector.importers.common as common
from inspector.importers.mem0 import import_mem0
real = common.Store
def stop(root, warn=True):
    os.kill(os.getpid(), int(sys.argv[3]))
    return real(root, warn=warn)
common.Store = stop
import_mem0(sys.argv[1], sys.argv[2])
"""


def stopped_import(target: Path, signum: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", STOPPED_IMPORT, str(SOURCE), str(target),
                             str(int(signum))], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def staged(parent: Path) -> list[str]:
    return [name for name in listing(parent) if name.startswith(".out.importing-")]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_remove_the_staging_directory(tmp_path, signum):
    done = stopped_import(tmp_path / "out", signum)
    _out, err = done.communicate(timeout=60)
    assert (done.returncode, err) == (-signum, "")
    assert listing(tmp_path) == []


def test_what_sigkill_left_the_next_import_removes(tmp_path, capsys):
    done = stopped_import(tmp_path / "out", signal.SIGKILL)
    done.communicate(timeout=60)
    assert done.returncode == -signal.SIGKILL
    [left] = staged(tmp_path)
    assert listing(tmp_path / left) == [".lock", "events.jsonl", "import.lock"]
    assert b"Lives in Lisbon" in (tmp_path / left / "events.jsonl").read_bytes()
    capsys.readouterr()
    assert import_mem0(SOURCE, tmp_path / "other")["events"] == 14
    assert capsys.readouterr().err == (
        f"removed {tmp_path / left}: an import into {tmp_path / 'out'} was stopped before it "
        "finished and left it, holding the values it had read\n")
    assert listing(tmp_path) == ["other"]


def test_a_live_import_s_directory_is_left_alone(tmp_path, capsys):
    live = stopped_import(tmp_path / "out", signal.SIGSTOP)
    try:
        wait_stopped(live.pid)
        [held] = staged(tmp_path)
        capsys.readouterr()
        import_mem0(SOURCE, tmp_path / "other")
        assert capsys.readouterr().err == ""
        assert listing(tmp_path) == [held, "other"]
    finally:
        os.kill(live.pid, signal.SIGCONT)
    assert live.wait(timeout=60) == 0
    assert listing(tmp_path) == ["other", "out"]
    assert listing(tmp_path / "out") == [".inspector", ".lock", "events.jsonl"]


def test_a_directory_without_a_lock_is_named_not_removed(tmp_path, capsys):
    """What an older release left (it took no lock) may be an import still running."""
    old = tmp_path / ".out.importing-ab12cd_3"
    old.mkdir()
    (old / "events.jsonl").write_bytes(b"{}\n")
    import_mem0(SOURCE, tmp_path / "other")
    assert capsys.readouterr().err == (
        f"{old}: left by an import into {tmp_path / 'out'}, and it may hold every value that "
        "import read; it holds no import lock (an older release made it, or an import is "
        "renaming it into place now), so it was not removed: remove it once no import is "
        f"running in {tmp_path}\n")
    assert listing(tmp_path) == [old.name, "other"]


def wait_stopped(pid: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found, status = os.waitpid(pid, os.WUNTRACED | os.WNOHANG)
        if found:
            assert os.WIFSTOPPED(status), status
            return
        time.sleep(0.02)
    raise AssertionError("the import never stopped")
