"""Shared fixtures: fresh copies of the sample stores and a way to write small stores."""

from __future__ import annotations

import os
import shutil
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
