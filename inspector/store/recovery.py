"""Recovery: what the next writer finishes or undoes after a crash in the middle of an
erasure, before it appends anything (DESIGN §6, "Recovery finishes the job"); and, so that the
erased bytes do not wait for a write, whoever opens the store first when no writer is at work
(`settle_if_idle`: every command that loads the store, and `audit --verify`).

An erasure writes, in order: a pending certificate `certificates/<id>.json.pending`, the
rewritten log in a temp file `.events.jsonl.tmp-*`, the rename of that temp over the log,
the removal of everything that may still hold erased bytes (torn files, the persistent view,
temp files), and last the rename of the pending certificate to `<id>.json`. Run under the
store's lock, `settle_certificates` brings any crash back to one of two ends:
- the log names the pending certificate (the rename happened): the erasure is finished —
  torn files, the view and temp files are deleted, then the certificate is made final;
- it does not: the erasure is undone — the pending certificate and the temp file go, the log
  is the old one untouched.
So a certificate exists exactly when the redacted log does. Any temp file found while the
lock is held is stale (only a writer holding the lock makes one) and is deleted.
"""

from __future__ import annotations

import fcntl
import os

from .errors import BadInput
from .files import fsync_dir, is_temp_of, remove_tree
from .logfile import LOG_NAME, StorePaths, check_writable

PENDING = ".json.pending"


def settle_certificates(paths: StorePaths) -> list[tuple[str, bool]]:
    """Finish or undo a crashed erasure, and delete stale temp files (see the module doc);
    returns (certificate id, finished) of each erasure settled."""
    stale = remove_stale_temps(paths)
    pending = _pending(paths)
    finished = [p for p in pending if log_names(paths, p.name[: -len(PENDING)])]
    if finished:
        drop_residue(paths)
    settled = []
    for path in pending:
        certificate = path.name[: -len(PENDING)]
        if path in finished:
            os.rename(path, path.with_name(certificate + ".json"))
        else:
            path.unlink()
        settled.append((certificate, path in finished))
    if pending:
        fsync_dir(paths.certificates)
    elif stale:
        fsync_dir(paths.root)
    return settled


def settled_note(root, settled: list[tuple[str, bool]]) -> str:
    """What a command says of the crashed erasures it settled: each one's certificate and
    whether it was finished or undone (helper-71: "finished or undone, as the log says" left a
    data owner to open the log to learn whether the subject's data was still there)."""
    said = []
    for certificate, finished in settled:
        said.append(f"{certificate} finished (the log had been rewritten; the certificate is "
                    "final)" if finished else
                    f"{certificate} undone (the log was not rewritten: nothing was erased; run "
                    "the erasure again)")
    return f"{root}: settled an erasure that was interrupted: " + "; ".join(said)


def settle_if_idle(paths: StorePaths) -> str | None:
    """Settle a crashed erasure now if one left a pending certificate and no writer holds the
    store's lock (an erasure at work holds it: its pending certificate is no crash); return
    what to say of it (settled_note), or None when nothing was settled. Best effort: a store
    this process cannot lock or write, or one a writer would refuse, is left to the next
    writer."""
    if not _pending(paths):
        return None
    try:
        fd = os.open(paths.lock, os.O_RDWR | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        check_writable(paths)
        if not _pending(paths):         # a writer settled it between the look and the lock
            return None
        settled = settle_certificates(paths)
        return settled_note(paths.root, settled) if settled else None
    except (OSError, BadInput):
        return None
    finally:
        os.close(fd)                    # (the lock goes with the descriptor)


def drop_residue(paths: StorePaths) -> None:
    """Torn files, the persistent view and temp files may hold erased bytes: delete them all."""
    remove_tree(paths.torn)
    remove_tree(paths.cache)
    remove_stale_temps(paths)
    fsync_dir(paths.root)


def remove_stale_temps(paths: StorePaths) -> int:
    """Delete every temp file a replace of the log left behind; how many there were."""
    found = 0
    with os.scandir(paths.root) as entries:
        for entry in entries:
            if is_temp_of(entry.name, LOG_NAME):
                remove_tree(paths.root / entry.name)
                found += 1
    return found


def _pending(paths: StorePaths) -> list:
    if not paths.certificates.is_dir():
        return []
    return sorted(p for p in paths.certificates.iterdir() if p.name.endswith(PENDING))


def log_names(paths: StorePaths, certificate_id: str) -> bool:
    """Whether the log holds the erase events of `certificate_id` (read in blocks: a big log
    is never read into memory at once)."""
    needle = f'"certificate":"{certificate_id}"'.encode()
    keep = len(needle) - 1
    with open(paths.log, "rb") as f:
        carry = b""
        while block := f.read(1 << 20):
            data = carry + block
            if needle in data:
                return True
            carry = data[-keep:]
    return False
