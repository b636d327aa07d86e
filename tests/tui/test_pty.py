"""The real app in a pseudo-terminal on a store of hostile values: no ESC, BEL, C1 or bidi
control from a value reaches the terminal, and markup stays literal (DESIGN §9)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time

import pytest

from storegen import entry, write_store

HOSTILE = {
    "H01": "[bold]x", "H02": "[/]", "H03": "[link=https://evil.example]x[/link]",
    "H04": "[@click=app.quit]x[/]", "H05": ":warning:", "H06": "trailing\\",
    "H07": "\x1b[2J", "H08": "\x1b]52;c;cHduZWQ=\x07", "H09": "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "H10": "\x1b]0;title\x07", "H11": "\x9b2J", "H12": "safe\rEVIL", "H13": "abc\u202edcba",
    "H14": "\x1bP1$r0m\x1b\\", "H15": "zero\u200bwidth \U000e0041tag",
}


def hostile_store(tmp_path):
    events = [("2025-01-01T00:00:00Z", "write", entry(
        memory_id, entity="victim", attribute=f"a{memory_id}", value=value,
        source=f"web:evil.example/{value if memory_id == 'H08' else 'x'}"))
        for memory_id, value in HOSTILE.items()]
    return write_store(tmp_path / "s", events)


def read_until(fd: int, sink: bytearray, done, limit: float = 60.0) -> bool:
    """Read the terminal until `done(bytes so far)` holds or the app closes; False when `limit`
    seconds pass first (a condition, not a fixed pause: a busy machine only makes it slower)."""
    deadline = time.monotonic() + limit
    while not done(bytes(sink)):
        if time.monotonic() > deadline:
            return False
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return done(bytes(sink))
            if not chunk:
                return done(bytes(sink))
            sink.extend(chunk)
    return True


def quiet_for(fd: int, sink: bytearray, seconds: float, limit: float = 30.0) -> None:
    """Read until nothing has arrived for `seconds` (the screen has painted), at most `limit`."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], seconds)
        if not ready:
            return
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        sink.extend(chunk)


def textual_own_removed(data: bytes) -> bytes:
    """The output without Textual's own control sequences: CSI sequences and its pointer-shape
    OSC 22 (the only place it uses BEL)."""
    return re.sub(rb"\x1b\[[\x20-\x3f]*[\x40-\x7e]|\x1b\]22;[a-z-]*\x07", b"", data)


# What the screen shows once every hostile row is painted (plain text between styles).
PAINTED = (b"victim", b"[@click=app.quit]x[/]", b"\\x9b2J", b"safe\\x0dEVIL", b"abc\\u202edcba")


def painted(data: bytes) -> bool:
    own = textual_own_removed(data)
    return all(p in own for p in PAINTED)


def open_in_terminal(store, lines: int, columns: int) -> tuple[int, subprocess.Popen]:
    """The app on `store` in a pseudo-terminal of lines x columns: (its master end, the app)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "open", str(store), "--operator", "t"],
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True,
                            env={**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns),
                                 "LINES": str(lines)})
    os.close(slave)
    return master, proc


@contextlib.contextmanager
def one_entry_app(tmp_path):
    """(store, terminal, output so far) of the app on a store of one entry ("plainvalue"),
    painted and quiet; at the end ctrl+q, and the app is gone."""
    store = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write",
                                          entry("A1", entity="e", attribute="a", value="plainvalue"))])
    master, proc = open_in_terminal(store, 40, 140)
    out = bytearray()
    try:
        assert read_until(master, out, lambda data: b"plainvalue" in textual_own_removed(data)), \
            "the app never painted the store"
        quiet_for(master, out, 1.0)
        yield store, master, out
        os.write(master, b"\x11")                      # ctrl+q
        read_until(master, out, lambda data: proc.poll() is not None, limit=20)
    finally:
        proc.kill()
        os.close(master)


def test_hostile_values_never_reach_the_terminal(tmp_path):
    master, proc = open_in_terminal(hostile_store(tmp_path), 45, 180)
    out = bytearray()
    try:
        assert read_until(master, out, painted), \
            "the app never painted the hostile rows"     # load, first paint
        quiet_for(master, out, 1.0)                    # the chain verify
        for _ in range(len(HOSTILE)):                  # every value through the detail pane
            os.write(master, b"\x1b[B")
            quiet_for(master, out, 0.3)
        for key in (b"2", b"5", b"6", b"1"):
            os.write(master, key)
            quiet_for(master, out, 0.5)
        os.write(master, b"\x11")                      # ctrl+q
        read_until(master, out, lambda data: proc.poll() is not None, limit=20)
    finally:
        proc.kill()
        os.close(master)
    data = bytes(out)
    assert b"victim" in data, "the app never painted the store"
    for raw in (b"\x1b]52", b"cHduZWQ=\x07", b"\x1b]0;title", b"\x1b]8;;https://evil", b"\x1bP1$r",
                b"\x1b[2J", "\u202e".encode(), "\u200b".encode(), "\U000e0041".encode()):
        assert raw not in data, raw
    assert re.search(rb"\xc2[\x80-\x9f]", data) is None, "a C1 control reached the terminal"
    # What is left once Textual's own control sequences are taken out: no ESC or BEL.
    own = textual_own_removed(data)
    assert b"\x1b" not in own and b"\x07" not in own
    # Markup stays literal and every control is a visible escape (in the text between styles).
    assert b"[bold]x" in own and b"[@click=app.quit]x[/]" in own
    assert b"\\x1b]52;c;cHduZWQ=\\x07" in own and b"\\x9b2J" in own and b"safe\\x0dEVIL" in own
    assert b"abc\\u202edcba" in own and b"\\u{e0041}" in own




def test_escape_and_a_key_read_as_one_are_the_escape_then_the_key(tmp_path):
    """Escape then "?" typed within Textual's escape delay (100 ms) reach the app as one read,
    "\\x1b?". Textual read it as alt and "?": the escape was lost and "?" was typed into the
    filter. The app reads the escape (it leaves the filter for the table), then "?" (the keys'
    help), as when typed slowly (keyroute.EscapeFirstParser)."""
    store = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write",
                                          entry("A1", entity="e", attribute="a", value="plainvalue"))])
    master, proc = open_in_terminal(store, 40, 140)
    out = bytearray()
    help_shown = b"detail pane (l or tab to focus)"
    try:
        assert read_until(master, out, lambda data: b"plainvalue" in textual_own_removed(data)), \
            "the app never painted the store"
        quiet_for(master, out, 1.0)
        os.write(master, b"/")
        quiet_for(master, out, 0.5)
        os.write(master, b"zz")
        assert read_until(master, out, lambda data: b"zz" in textual_own_removed(data), limit=20)
        quiet_for(master, out, 0.5)
        mark = len(out)
        os.write(master, b"\x1b?")
        shown = read_until(master, out, lambda data: help_shown in textual_own_removed(data[mark:]), limit=20)
        quiet_for(master, out, 0.5)
        after = textual_own_removed(bytes(out[mark:]))
        os.write(master, b"\x11")                      # ctrl+q
        read_until(master, out, lambda data: proc.poll() is not None, limit=20)
    finally:
        proc.kill()
        os.close(master)
    assert shown, "escape and ? read as one did not open the help"
    assert b"zz?" not in after


@pytest.mark.parametrize("keys", [b"Qx\x1b3", b"\x10\x1b3"], ids=["dialog", "palette"])
def test_a_screen_digit_after_the_escape_that_closes_a_modal_goes_to_its_screen(tmp_path, keys):
    """"Q x esc 3" in one burst (helper-62 #2), or ctrl+p then esc 3: the escape closes the
    quarantine dialog (the command palette), and the 3 opens Conflicts. The 3 was read before
    the modal had gone, went into it, and was lost: the screen stayed on Beliefs. Nothing is
    written."""
    conflicts = b"Beliefs with markers"
    with one_entry_app(tmp_path) as (store, master, out):
        before = (store / "events.jsonl").read_bytes()
        mark = len(out)
        os.write(master, keys)
        shown = read_until(master, out, lambda data: conflicts in textual_own_removed(data[mark:]),
                           limit=20)
    assert shown, "the 3 after the escape did not open Conflicts"
    assert (store / "events.jsonl").read_bytes() == before


@pytest.mark.parametrize("gap", [0.005, 0.01, 0.02])
def test_keys_typed_just_after_the_escape_burst_keep_their_order(tmp_path, gap):
    """helper-65: "esc /" closed the quarantine dialog and its "/" was kept until the dialog
    had gone; "rex", typed 10 ms later, was read then and overtook it: its "r" opened a retract
    dialog, and "ex/" went into its reason. Every key now goes in the order typed: the filter
    gets "rex", and no dialog opens."""
    with one_entry_app(tmp_path) as (store, master, out):
        before = (store / "events.jsonl").read_bytes()
        os.write(master, b"Qmy reason")
        quiet_for(master, out, 0.7)
        mark = len(out)
        os.write(master, b"\x1b/")
        time.sleep(gap)
        os.write(master, b"rex")
        quiet_for(master, out, 1.5)
        after = textual_own_removed(bytes(out[mark:]))
    assert b"Retract" not in after, "a key of the filter opened a retract dialog"
    assert b"rex" in after, "the filter did not get the keys typed after /"
    assert (store / "events.jsonl").read_bytes() == before
