"""The view shared (DESIGN §2.5): the TUI open, a loop of readers and an ingest loop at once.

For CONCURRENCY_SECONDS (default 60): the real TUI in a pseudo-terminal takes every append
live; a reader process opens the store and answers `show` and `held` over and over; an ingest
process writes one entry at a time through the CLI. No command fails, no reader takes more
than a second longer to open the store (its catch-up included) than it takes with nobody else
on the store, every write lands once, the chain verifies, and the TUI, still running, shows
the last head.
"""

from __future__ import annotations

import fcntl
import json
import os
import struct
import subprocess
import sys
import termios
import textwrap
import time

import pytest

from inspector.store.audit import verify
from inspector.store.logfile import store_paths
from storegen import entry, write_store
from tui.test_pty import quiet_for, read_until, textual_own_removed

pytestmark = pytest.mark.alone        # readers timed against the machine at rest

SECONDS = float(os.environ.get("CONCURRENCY_SECONDS", "60"))
ENTRIES = 3000

READER = textwrap.dedent("""
    import json, sys, time
    from inspector.store.load import Store
    from inspector.store import entries
    root, seconds = sys.argv[1], float(sys.argv[2])
    waits, rounds, end = [], 0, time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        store = Store(root, warn=False)                  # the view, and the lines since
        waits.append(time.monotonic() - started)
        entries.show(store.con, "E17", "the store")
        list(entries.each_held(store.con))
        store.close()
        rounds += 1
    print(json.dumps({"rounds": rounds, "max_wait": max(waits),
                      "median_wait": sorted(waits)[len(waits) // 2]}))
""")


def test_the_tui_readers_and_a_writer_share_the_store(tmp_path):
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write",
         entry(f"E{i}", entity=f"user:{i % 300}", attribute=f"a{i % 7}", value=i,
               status="held" if i % 50 == 0 else "active"))
        for i in range(ENTRIES)])
    subprocess.run([sys.executable, "-m", "inspector", "held", str(root), "--json"],
                   check=True, capture_output=True)                      # the view, built once
    # What opening takes on this machine right now with nobody else on the store: a reader
    # "blocked" is one that takes a second longer than that (a busy machine is not a block).
    alone = subprocess.run([sys.executable, "-c", READER, str(root), "3"], capture_output=True,
                           text=True, check=True)
    limit = 1.0 + 3 * json.loads(alone.stdout)["median_wait"]

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    tui = subprocess.Popen([sys.executable, "-m", "inspector", "open", str(root), "--read-only"],
                           stdin=slave, stdout=slave, stderr=slave, close_fds=True,
                           env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "160",
                                "LINES": "40"})      # the pty's size (xdist's workers set 80x24)
    os.close(slave)
    screen = bytearray()
    try:
        assert read_until(master, screen, lambda d: b"E1" in textual_own_removed(d), limit=120), \
            "the TUI never painted the store"
        reader = subprocess.Popen([sys.executable, "-c", READER, str(root), str(SECONDS)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        written, failures, end = 0, [], time.monotonic() + SECONDS
        while time.monotonic() < end:
            one = tmp_path / "one.jsonl"
            made = entry(f"W{written}", entity="user:w", attribute="city", value=written)
            one.write_text(json.dumps({k: v for k, v in made.items() if k != "status"}) + "\n")
            done = subprocess.run([sys.executable, "-m", "inspector", "ingest", str(root), str(one),
                                   "--actor", "agent:loop", "--json"], capture_output=True, text=True)
            if done.returncode != 0:
                failures.append(done.stderr)
            written += 1
            quiet_for(master, screen, 0.01, limit=0.05)               # keep the pty drained
        out, err = reader.communicate(timeout=SECONDS + 120)
        assert reader.returncode == 0, err
        assert failures == []
        readers = json.loads(out)
        total = ENTRIES + written
        head = f"{total}:".encode()
        assert read_until(master, screen, lambda d: head in textual_own_removed(d)[-200_000:],
                          limit=30), f"the TUI never showed head {total}"
        assert tui.poll() is None, "the TUI exited"
    finally:
        tui.kill()
        os.close(master)
    lines = (root / "events.jsonl").read_bytes().splitlines()
    assert len(lines) == ENTRIES + written
    assert sorted(json.loads(l)["memory_id"] for l in lines[ENTRIES:]) == sorted(f"W{i}" for i in range(written))
    assert verify(store_paths(root)).ok
    assert b"Traceback" not in bytes(screen)
    assert readers["rounds"] > 10 and readers["max_wait"] < limit, (readers, limit)
    print(f"\n{written} ingests, {readers['rounds']} reader rounds (open: median "
          f"{readers['median_wait'] * 1000:.0f} ms, max {readers['max_wait'] * 1000:.0f} ms; "
          f"limit {limit * 1000:.0f} ms)")
