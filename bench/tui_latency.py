"""Responsiveness of the TUI in a real pseudo-terminal (not a test).

    python bench/tui_latency.py 1m 5m        # synthetic stores from bench/synth.py (cached in bench/out/)
    python bench/tui_latency.py PATH          # any store

The app runs as a user would run it (`inspector open STORE --read-only`) at 180x45. A key's
latency is the time from writing it to the pty until the last byte of the screen update it
caused (the first 25 ms of silence ends an update). Headless pilot timings are not used: the
pilot adds 42-63 ms of its own per key. Memory: the app's RSS, and the RSS of a process that
loads the same store and builds the same belief view without any UI (DuckDB's share).
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import statistics
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
QUIET = 0.025
KEYS = {"down": b"\x1b[B", "up": b"\x1b[A", "pagedown": b"\x1b[6~", "pageup": b"\x1b[5~",
        "end": b"\x1b[F", "home": b"\x1b[H"}


class Terminal:
    def __init__(self, store: Path):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 180, 0, 0))
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "inspector", "open", str(store), "--read-only"],
                                     stdin=slave, stdout=slave, stderr=slave, close_fds=True,
                                     env={**os.environ, "TERM": "xterm-256color"})
        os.close(slave)
        self.seen = bytearray()

    def read(self, timeout: float) -> bytes:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return b""
        chunk = os.read(self.master, 1 << 20)
        self.seen.extend(chunk)
        return chunk

    def wait_for(self, needle: bytes, timeout: float) -> float:
        deadline = time.perf_counter() + timeout
        while needle not in self.seen:
            if time.perf_counter() > deadline:
                raise TimeoutError(needle)
            self.read(0.05)
        return time.perf_counter()

    def drain(self, seconds: float = 0.3) -> None:
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            self.read(0.02)

    def key(self, data: bytes, window: float = 1.0) -> tuple[float, float]:
        """(first update's latency, latency of the last byte within `window`), in seconds."""
        self.drain(0.15)
        sent = time.perf_counter()
        os.write(self.master, data)
        first = last = None
        while time.perf_counter() - sent < window:
            if self.read(QUIET):
                last = time.perf_counter()
            elif last is not None and first is None:
                first = last
        return (first or last or sent) - sent, (last or sent) - sent

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def close(self) -> None:
        os.write(self.master, b"\x11")
        time.sleep(0.5)
        self.proc.kill()


def pct(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return f"p50 {statistics.median(ms):7.1f} ms  p95 {ms[int(0.95 * (len(ms) - 1))]:7.1f} ms  (n={len(ms)})"


def baseline_rss(store: Path) -> float:
    code = ("import resource,sys; from inspector.store.load import Store; from inspector.tui.session "
            "import Session; s=Session(sys.argv[1]); s.open(); s.rebuild_view(); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024)")
    return float(subprocess.run([sys.executable, "-c", code, str(store)], capture_output=True,
                                text=True, check=True).stdout)


def measure(store: Path) -> dict:
    term = Terminal(store)
    loaded = term.wait_for(" events \u00b7".encode(), 600)
    term.wait_for(b"order-", 60)                          # the first belief rows are painted
    painted = time.perf_counter()
    out = {"store": str(store), "launch_to_loaded_s": round(loaded - term.started, 2),
           "loaded_to_first_rows_s": round(painted - loaded, 3)}
    term.wait_for("chain \u2713".encode(), 1800)       # the background verify has finished
    term.drain(2.0)
    downs = [term.key(KEYS["down"], 0.6) for _ in range(40)]
    out["cursor_move"] = pct([d[0] for d in downs])
    out["cursor_with_detail_pane"] = pct([d[1] for d in downs])
    out["page_down"] = pct([term.key(KEYS["pagedown"], 0.6)[0] for _ in range(20)])
    jumps = []
    for _ in range(8):
        jumps.append(term.key(KEYS["end"], 0.8)[0])
        jumps.append(term.key(KEYS["home"], 0.8)[0])
    out["jump_end_home"] = pct(jumps)
    tabs = []
    for _ in range(8):
        tabs.append(term.key(b"2", 0.8)[0])
        tabs.append(term.key(b"1", 0.8)[0])
    out["tab_switch"] = pct(tabs)
    term.key(b"/", 0.3)
    for ch in b"K1234":             # the last keystroke narrows to K1234-*; rows show "K1234-"
        sent = time.perf_counter()
        os.write(term.master, bytes([ch]))
    term.seen.clear()
    out["filter_keystroke_to_results"] = f"{(term.wait_for(b'K1234-', 60) - sent) * 1000:.1f} ms (debounce 120 ms included)"
    term.key(b"\x1b", 0.3)
    term.key(b"t", 0.3)
    for ch in b"2025-01-15T00:00:00Z":
        term.key(bytes([ch]), 0.05)
    out["as_of_change_to_results"] = pct([term.key(b"\r", 60.0)[1]])
    out["app_peak_rss_mb"] = round(term.peak_rss_mb())
    term.close()
    out["no_ui_peak_rss_mb"] = round(baseline_rss(store))
    out["ui_overhead_mb"] = out["app_peak_rss_mb"] - out["no_ui_peak_rss_mb"]
    return out


def store_for(arg: str) -> Path:
    if Path(arg).is_dir():
        return Path(arg)
    from bench_load import store_for as synth
    return synth(arg.lower())


if __name__ == "__main__":
    for arg in sys.argv[1:] or ["1m"]:
        print(json.dumps(measure(store_for(arg)), indent=1))
