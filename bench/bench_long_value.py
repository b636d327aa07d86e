"""Benchmark: one huge value (a hostile writer's 50 MB string, a 200,000-key object), as a user
meets it: the first command on the store, `show` of it, and its erasure.

    python bench/bench_long_value.py            # a 50 MB string and a 200,000-key object
    python bench/bench_long_value.py 200        # a 200 MB string

Each figure is one `python -m inspector …` process timed from outside, with its peak RSS.
Reading the log backwards (the torn-tail and unfinished-batch checks) used to copy the long
line once per 64 KiB block: 43 s for the first command at 50 MB. Not a test: it prints.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))
from storegen import entry  # noqa: E402

from inspector.store.append import LogWriter, event_draft, init_store  # noqa: E402


def timed(*args: str) -> str:
    proc = subprocess.run(["/usr/bin/time", "-f", "BENCH %e %M", sys.executable, "-m", "inspector",
                           *args], capture_output=True, text=True)
    seconds, kb = [line for line in proc.stderr.splitlines() if line.startswith("BENCH ")][-1].split()[1:]
    return f"{float(seconds):6.2f} s {int(kb) // 1024:5d} MB  (exit {proc.returncode})"


def main(megabytes: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "s"
        paths = init_store(root)
        with LogWriter(paths) as writer:
            writer.append([event_draft("write", "K1", "agent:x",
                                       after=entry("K1", "svc", "keys", {f"k{i}": i for i in range(200_000)}))])
            writer.append([event_draft("write", "L1", "agent:x",
                                       after=entry("L1", "svc", "long", "x" * (megabytes << 20)))])
        size = (root / "events.jsonl").stat().st_size
        print(f"log {size / 1e6:.1f} MB: a {megabytes} MB string and a 200,000-key object")
        print(f"first command (beliefs, cold)  {timed('beliefs', str(root), '--json')}")
        print(f"show L1                        {timed('show', str(root), 'L1', '--json')}")
        print(f"erase K1 L1                    {timed('erase', str(root), 'K1', 'L1', '--reason', 'DSR-9', '--operator', 'bench')}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
