"""Shared fixtures: fresh copies of the sample stores and a way to write small stores."""

from __future__ import annotations

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
