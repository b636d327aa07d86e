"""Recovery: what the next writer finishes or undoes after a crash in the middle of an
erasure, before it appends anything."""

from __future__ import annotations

import os

from .files import fsync_dir
from .logfile import StorePaths


def settle_certificates(paths: StorePaths) -> None:
    """Finish or undo an erasure that crashed between its certificate and its log rewrite: a
    pending certificate becomes final when the log names it, and is deleted when it does not."""
    pending = sorted(paths.certificates.glob("*.json.pending")) if paths.certificates.is_dir() else []
    if not pending:
        return
    log = paths.log.read_bytes()
    for path in pending:
        certificate = path.name[: -len(".json.pending")]
        if f'"certificate":"{certificate}"'.encode() in log:
            os.rename(path, path.with_name(certificate + ".json"))
        else:
            path.unlink()
    fsync_dir(paths.certificates)
