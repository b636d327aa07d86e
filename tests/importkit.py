"""What the importer tests share: the fixtures, the log, beliefs as a user sees them, and the
check that a refused import names what it must and leaves nothing behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.store.errors import BadInput

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "importers"
INSPECTOR = [sys.executable, "-m", "inspector"]
IMPORT = [sys.executable, "-m", "inspector", "import"]
HOSTILE = "Favourite quote: [bold]x[/bold] \x1b]52;c;cHduZWQ=\x07"


def log(store: Path) -> list[dict]:
    return [json.loads(line) for line in (store / "events.jsonl").read_bytes().splitlines()]


def beliefs(store: Path) -> dict[tuple[str, str], object]:
    done = subprocess.run(INSPECTOR + ["beliefs", str(store), "--json"], capture_output=True,
                          text=True, check=True)
    return {(b["entity"], b["attribute"]): b["value"] for b in json.loads(done.stdout)["beliefs"]}


def listing(directory: Path) -> list[str]:
    return sorted(os.listdir(directory))


def refused_by(importer, tmp_path: Path, source: Path, *needles: str, **options) -> str:
    """Import `source`, expect a refusal naming `needles`, and nothing left behind."""
    before = listing(tmp_path)
    with pytest.raises(BadInput) as caught:
        importer(source, tmp_path / "out", **options)
    message = str(caught.value)
    for needle in needles:
        assert needle in message
    assert not (tmp_path / "out").exists()
    assert listing(tmp_path) == before          # no temporary directory either
    return message
