"""All or nothing (DESIGN §5): an action whose cascade reaches 2,000 entries is killed at
random points of its write — between the chunks of its one write, or by a SIGKILL at a random
moment — and every reader then sees all of the batch or none of it; the next writer moves an
unfinished batch aside to torn/ and the chain verifies. BATCH_CRASH_TRIALS sets the count
(CI runs a few dozen; the closing note's figure is from a long run)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from storegen import entry
from inspector.store.append import LogWriter, event_draft, init_store
from inspector.store.audit import verify
from inspector.store.load import Store
from inspector.store.logfile import store_paths

TRIALS = int(os.environ.get("BATCH_CRASH_TRIALS", "12"))
CASCADE = 2000
CHILD = r"""
import os, sys
from inspector.store import files
from inspector.store.actions import Request
from inspector.store.load import Store
from inspector.store.registry import apply, plan
root, die_at = sys.argv[1], int(sys.argv[2])
seen = [0]
def hook(stage):
    if stage == "mid_write":
        seen[0] += 1
        if seen[0] == die_at:
            os._exit(9)
files.crash_hook = hook
store = Store(root, warn=False)
reviewed = plan(store, Request("quarantine", "contain INC-9", "oncall", ("R",)))
print("planned", flush=True)
apply(store, reviewed)
print("applied", flush=True)
"""


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tpl") / "store"
    paths = init_store(root)
    states = [entry("R", "svc", "root", "the root")]
    states += [entry(f"D{i:04d}", "svc", f"k{i}", f"derived {i}", kind="summary",
                     justification=["R"]) for i in range(CASCADE)]
    with LogWriter(paths) as writer:
        writer.append([event_draft("write", s["id"], "agent:1", after=s) for s in states])
    return root


def statuses(root: Path) -> dict[str, int]:
    rows = Store(root, warn=False).con.execute(
        "SELECT status, count(*) FROM entries GROUP BY status").fetchall()
    return dict(rows)


def trial(template: Path, work: Path, rng: random.Random, by_signal: bool) -> str:
    root = work / "s"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(template, root)
    die_at = 10 ** 9 if by_signal else rng.randint(1, 30)
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(root), str(die_at)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    assert first.startswith("planned"), proc.stderr.read()[-2000:]
    if by_signal:
        time.sleep(rng.uniform(0, 3.0))
        proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=120)
    seen = statuses(root)
    whole = seen in ({"active": CASCADE + 1}, {"quarantined": CASCADE + 1})
    assert whole, f"a reader saw part of a batch: {seen}"
    with LogWriter(store_paths(root)) as writer:      # the next writer sets the rest aside
        writer.append([event_draft("write", "X", "agent:1", after=entry("X", "svc", "x", "x"))])
    assert verify(store_paths(root)).ok
    again = statuses(root)
    assert again.get("quarantined", 0) in (0, CASCADE + 1)
    return "applied" if seen.get("quarantined") else "none"


@pytest.mark.heavy
def test_a_killed_cascade_is_seen_whole_or_not_at_all(template, tmp_path):
    rng = random.Random(20261130)
    outcomes = [trial(template, tmp_path / f"t{i}", rng, by_signal=i % 2 == 1) for i in range(TRIALS)]
    # both outcomes happen: kills land before and after the last chunk
    assert outcomes.count("none") >= 1
    print(f"\n{TRIALS} kills: {outcomes.count('applied')} whole batches, "
          f"{outcomes.count('none')} set aside whole")
