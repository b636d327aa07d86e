"""The bundled sample stores and a private copy to play with.

The samples ship inside the package as package data (`inspector.samples_data`, built from the
project's top-level sample_stores/), so they are found the same way from a checkout, an
editable install or a wheel, whatever the working directory."""

from __future__ import annotations

import tempfile
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from .store.errors import BadInput
from .store.files import DIR_MODE, write_file
from .store.logfile import LOG_NAME

DATA_PACKAGE = "inspector.samples_data"
# In story order (the first is `inspector demo`'s default); tests check it against the data.
NAMES = ("branch-contamination", "refund-window", "moved-city", "report-language", "multi-tenant",
         "incident-afternoon")
# What a store directory may hold that is no part of a sample: the writers' lock, the
# persistent view (derived), bytecode of the package-data directory.
NOT_COPIED = frozenset({".lock", ".inspector", "__pycache__"})


def sample_root() -> Traversable:
    """The directory of the bundled samples, as package data."""
    try:
        return resources.files(DATA_PACKAGE)
    except ModuleNotFoundError:
        raise BadInput("the sample stores are missing from this installation of inspector; "
                       "reinstall it (pip install .)") from None


def installed_names() -> tuple[str, ...]:
    """The samples that are really there: each directory of the package data holding a log."""
    return tuple(sorted(entry.name for entry in sample_root().iterdir()
                        if entry.is_dir() and entry.joinpath(LOG_NAME).is_file()))


def copy_sample(name: str) -> Path:
    """A private copy (0700 directories, 0600 files) of sample `name` in a new temp directory;
    the bundled original is never opened for writing."""
    if name not in NAMES:
        raise BadInput(f"no sample store {name!r}; choose one of {', '.join(NAMES)}")
    source = sample_root().joinpath(name)
    if not source.joinpath(LOG_NAME).is_file():
        raise BadInput(f"the sample store {name!r} is missing from this installation of inspector; "
                       "reinstall it (pip install .)")
    target = Path(tempfile.mkdtemp(prefix=f"inspector-{name}-")) / name
    target.parent.chmod(DIR_MODE)
    _copy_tree(source, target)
    return target


def _copy_tree(source: Traversable, target: Path) -> None:
    target.mkdir(mode=DIR_MODE)
    target.chmod(DIR_MODE)
    for entry in source.iterdir():
        if entry.name in NOT_COPIED:
            continue
        if entry.is_dir():
            _copy_tree(entry, target / entry.name)
        else:
            write_file(target / entry.name, entry.read_bytes())
