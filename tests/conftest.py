"""Shared fixtures: fresh copies of the sample stores and a way to write small stores."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_stores"
sys.path.insert(0, str(ROOT / "tests"))
# Every store a test opens keeps a persistent view, however small (the product writes one from
# 64 KiB of log on): so that every test also checks the view's answers and its cleanup.
os.environ["INSPECTOR_VIEW_MIN_BYTES"] = "0"

_TURNS: tuple | None = None


def _turn_files(tmp_path_factory):
    """(turnstile, room): two lock files shared by the workers of one pytest-xdist run (in the
    run's temporary directory, the parent of each worker's), or None outside xdist."""
    global _TURNS
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return None
    if _TURNS is None:
        shared = tmp_path_factory.getbasetemp().parent
        _TURNS = tuple(open(shared / f"tests.{name}.lock", "a+b") for name in ("turnstile", "room"))
    return _TURNS


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto` (the README's test command): a worker more than the cores. A TUI or command
    test waits part of its time (a child process, fsync, the app's event loop), so two workers
    on two cores left a fifth of the CPU idle; three ran tests/tui's console and workflow tests
    in 111 s instead of 122 s (2026-12-06, 2 cores)."""
    return len(os.sched_getaffinity(0)) + 1


def pytest_collection_modifyitems(config, items):
    """The tests marked `alone` first, then those marked `heavy` (a minute or more each), then
    the rest, each group in its own order. A worker hands out tests in this order, so the alone
    tests wait for the other worker's short tests, not a heavy one (an alone test queued behind
    a 7-minute test once held both workers for five minutes), and the run ends on short tests,
    with both workers busy to the end."""
    def rank(item) -> int:
        return 0 if item.get_closest_marker("alone") else 1 if item.get_closest_marker("heavy") else 2
    items.sort(key=rank)


@pytest.fixture(autouse=True)
def _share_the_machine(request, tmp_path_factory):
    """The README's test command runs a worker a core and one more (pytest-xdist). A test
    marked `alone` (it times something, or races other processes against a clock) waits until
    no other test runs and holds the machine to itself; every other test shares it. The
    turnstile keeps a test waiting to run alone from being passed by another worker's next
    tests."""
    files = _turn_files(tmp_path_factory)
    if files is None:
        yield
        return
    turnstile, room = files
    alone = request.node.get_closest_marker("alone") is not None
    fcntl.flock(turnstile, fcntl.LOCK_EX)
    try:
        fcntl.flock(room, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
    finally:
        if not alone:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
    try:
        yield
    finally:
        fcntl.flock(room, fcntl.LOCK_UN)
        if alone:
            fcntl.flock(turnstile, fcntl.LOCK_UN)


@pytest.fixture
def sample(tmp_path):
    """sample("branch-contamination") -> a private copy (0700/0600) of that sample store."""
    def copy(name: str) -> Path:
        target = tmp_path / name
        if target.exists():
            return target
        shutil.copytree(SAMPLES / name, target, ignore=shutil.ignore_patterns(".lock", ".inspector"))
        target.chmod(0o700)
        for path in target.rglob("*"):
            path.chmod(0o700 if path.is_dir() else 0o600)
        return target
    return copy


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MB tmpfs to fill (mounting needs root; skipped where it cannot be mounted)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({done.stderr.strip() or done.returncode})")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)
