"""The bundled sample stores: where they are, and a private copy to play with."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .store.append import DIR_MODE, FILE_MODE
from .store.errors import BadInput

NAMES = ("branch-contamination", "refund-window", "moved-city", "report-language", "multi-tenant")


def sample_root() -> Path:
    """sample_stores/ beside the package (a source checkout or an editable install)."""
    for base in (Path(__file__).resolve().parents[1], Path.cwd()):
        if (base / "sample_stores").is_dir():
            return base / "sample_stores"
    raise BadInput("the sample stores are not here: run from the project's checkout "
                   "(they live in sample_stores/)")


def copy_sample(name: str) -> Path:
    if name not in NAMES:
        raise BadInput(f"no sample store {name!r}; choose one of {', '.join(NAMES)}")
    target = Path(tempfile.mkdtemp(prefix=f"inspector-{name}-")) / name
    shutil.copytree(sample_root() / name, target, ignore=shutil.ignore_patterns(".lock", ".inspector"))
    target.parent.chmod(DIR_MODE)
    target.chmod(DIR_MODE)
    for path in target.rglob("*"):
        path.chmod(DIR_MODE if path.is_dir() else FILE_MODE)
    return target
