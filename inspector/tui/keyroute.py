"""Where a key typed fast goes: as it would go typed slowly.

Textual hands each key to the widget that has the focus when the key is read, and a burst
(a paste, a fast typist) is read before any of it is handled. Two things follow, both fixed
here for the app (app.InspectorApp's on_event and _on_key call in):

- a key behind one that moves the focus to a field of the screen ("/timeout", "t2030") is
  handed to the table and comes back to the app after the focus moved, where it would run the
  screen's bindings ("e" of "timeout" opened an erasure): it goes into the field, in order;
- escape then a key, typed within Textual's escape delay (100 ms), is one read ("\\x1b/",
  "\\x1bx", "\\x1b4") that Textual takes for alt and the key: the escape was lost ("esc /"
  read as "/"), a dialog's field typed the "x" where escape closes the dialog, and "esc 4"
  became WezTerm's macOS Option+4 and typed "¢" into the filter. The terminal's reader
  (EscapeFirstParser) reads such a pair as escape, then the key. The sequences a terminal
  sends that begin so are left as Textual reads them: escape sequences ("\\x1b[", "\\x1bO",
  and the replies to queries) and Option+left/right on macOS ("\\x1bb", "\\x1bf": a word back
  or on in a field). A key still read as alt+4 (a terminal reporting Alt itself, or an escape
  the delay split from a partial sequence) goes, in a field (TypedInput), as escape then 4,
  and `rerouted` on a table, as the 4. The app binds no alt key.

A third: the keys after an escape that closes a modal (a dialog, the help, the command
palette) were read before the modal had gone, so they went into it and were lost ("esc 3"
closed the quarantine dialog and stayed on Beliefs: helper-62). `EscapeBurst` sends them round
the app again, as typed, once the modal has gone. A dialog not yet ready keeps every key read
meanwhile (TypeAhead.hold) and hands them back in order, escape first: only then is a key
after the escape kept here (a key kept here while the escape before it was still held went
round the app ahead of it: CI, stop 56).
"""

from __future__ import annotations

import bisect
import time

from textual import events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser
from textual.drivers import linux_driver
from textual.screen import ModalScreen

from .widgets.typed_input import TypedInput

for _sequence in ("\x1b1", "\x1b2", "\x1b3", "\x1b4", "\x1b5", "\x1b6", "\x1b7", "\x1b8", "\x1b9",
                  "\x1b0", "\x1b-", "\x1b=", "\x1b§"):
    ANSI_SEQUENCES_KEYS.pop(_sequence, None)

ESC = "\x1b"
# After an escape, what begins a sequence a terminal sends (CSI, SS3, and the DCS, OSC, APC,
# PM, SOS and ST of replies to queries): read on, as Textual does.
INTRODUCERS = frozenset("[O]P_\\^X")


class EscapeFirstParser(XTermParser):
    """Textual's reader of the terminal, but escape and a printable key read as one are the
    escape, then the key (module docstring)."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False):
        if len(sequence) == 2 and sequence[0] == ESC and sequence[1].isprintable() \
                and sequence[1] not in INTRODUCERS and sequence not in ANSI_SEQUENCES_KEYS:
            yield events.Key("escape", ESC)
            yield from super()._sequence_to_key_events(sequence[1])
            return
        yield from super()._sequence_to_key_events(sequence, alt)


linux_driver.XTermParser = EscapeFirstParser      # the reader a real terminal's input goes through


def note_handed(app, event: events.Event) -> None:
    """Before App hands a key read from the terminal on: note the widget it goes to."""
    if isinstance(event, events.Key) and not event.is_forwarded:
        event._handed_to = app.focused


def rerouted(app, event: events.Key, quiet_until: float) -> bool:
    """Send on a key that came back to the app where it would have gone typed slowly: into the
    field the focus moved to since it was handed on, or, escape and a key read as one (alt+4)
    on a table, as the key alone (not inside the quiet time after a write, `quiet_until`).
    Returns whether it did (the event is then stopped)."""
    top, field = app.screen, app.focused
    if isinstance(top, ModalScreen):
        return False
    handed_to = getattr(event, "_handed_to", None)
    if handed_to is not None and handed_to is not field and isinstance(field, TypedInput) \
            and field.screen is top and handed_to in top.walk_children():
        target, key = field, events.Key(event.key, event.character)
    elif len(event.key) == 5 and event.key.startswith("alt+") and event.time >= quiet_until:
        target, key = app, events.Key(event.key[4:], event.key[4:])
    else:
        return False
    event.prevent_default()
    event.stop()
    target.post_message(key)
    return True


# The keys after an escape that are of its burst: typed within this many seconds of it.
AFTER_ESCAPE_BURST_S = 0.5
# Keys sent round the app that have not come back after this long are no longer waited for.
IN_FLIGHT_S = 1.0
# How long the keys after an escape wait for the modal it closes to go: tries this far apart.
AFTER_ESCAPE_WAIT_S = 0.02
AFTER_ESCAPE_TRIES = 50
# The longest they wait for a dialog to be ready (mounted, its field focused) before counting.
AFTER_ESCAPE_MAX_S = 10.0


def kept_copy(event: events.Key, waited_for) -> events.Key:
    """A copy of `event` to send round the app later: typed when it was, and noting the modal
    it waited for (None: none, it was kept behind others)."""
    key = events.Key(event.key, event.character)
    key.time, key._waited_for = event.time, waited_for
    return key


class EscapeBurst:
    """The keys a modal was handed after an escape (module docstring), kept in the order they
    were typed: a key read while some are kept, or on their way round the app, goes behind
    them (helper-65: "esc /" kept the "/", and "rex" typed 10 ms later, read once the dialog
    had gone, overtook it: its "r" opened a retract dialog); a key typed before them (the
    escape, come back from a dialog that another took the place of) goes on now, ahead.

    They wait for the last modal an escape typed before them was handed to: the planning
    dialog's escape can reach the app's bindings after the plan's dialog took its place, and
    goes to that one (InspectorApp._on_key), which the keys then wait for (CI, stop 56: they
    went round the app as the planning dialog went, into the plan's)."""

    def __init__(self) -> None:
        self.modal = None          # the modal an escape was handed to, while it is on top
        self.at = 0.0              # and when that escape was typed
        self.kept_keys: list[events.Key] = []   # kept, in the order typed, not yet sent
        self.since = 0.0           # when the first of those kept or on their way was typed
        self.waiting = False       # for the modal to go (a timer runs)
        self.in_flight = 0         # sent round the app, not yet read back
        self.sent_at = 0.0
        self.waited_from = 0.0

    def taken(self, app, event: events.Event) -> bool:
        """Whether `event` is kept: read while a modal an escape went to is on top, it goes
        round the app once the modal has gone (or, if it stays, to it, as before); read while
        keys are kept or on their way, it goes behind them."""
        if not isinstance(event, events.Key) or event.is_forwarded:
            return False
        if getattr(event, "_after_escape", False):         # one of ours, back
            self.in_flight = max(0, self.in_flight - 1)
            top = app.screen
            if top is self.modal and getattr(event, "_waited_for", None) is not top \
                    and event.time >= self.at:
                self._keep(app, event, top)   # an escape before it went to the modal on top now
                return True
            if not self.in_flight and self.kept_keys and not self.waiting:
                self._send(app)
            return False
        if self.in_flight and time.monotonic() - self.sent_at > IN_FLIGHT_S:
            self.in_flight = 0     # never kept for good: a key that did not come back is let go
            if self.kept_keys and not self.waiting:
                self._send(app)
        if self._behind(event):
            return True
        top = app.screen
        if not isinstance(top, ModalScreen) or getattr(top, "writing", False):
            self.modal = None
            return False
        holds = getattr(top, "holds", None)
        if holds is not None and holds(event):
            return False           # a dialog not ready keeps it, in order, and hands it back here
        return self.kept(app, top, event)

    def kept(self, app, modal, event: events.Key) -> bool:
        """`event` goes to `modal`: an escape is noted; a key after one is kept (taken). Also
        for the keys of the burst that opened a dialog, which the app hands on to it (typed
        before it was there: "Q", "x", escape, "3")."""
        if self._behind(event):
            return True
        if event.key == "escape":
            self.modal, self.at = modal, event.time
            return False
        if modal is not self.modal or event.time - self.at > AFTER_ESCAPE_BURST_S:
            return False           # typed later: the modal stayed, and the key is its own
        self._keep(app, event, modal)
        return True

    def _keep(self, app, event: events.Key, modal) -> None:
        """Keep `event` (a copy, as typed), in the order typed, until `modal` has gone."""
        if not (self.kept_keys or self.in_flight):
            self.since = event.time
        bisect.insort(self.kept_keys, kept_copy(event, modal), key=lambda key: key.time)
        if not self.waiting:
            self.waiting = True
            self.waited_from = time.monotonic()
            self._wait(app, modal, 0)

    def _behind(self, event: events.Key) -> bool:
        """Keep `event` behind the keys kept or on their way, if there are any and it was
        typed after them."""
        if not (self.kept_keys or self.in_flight) or event.time < self.since:
            return False
        self.kept_keys.append(kept_copy(event, None))
        return True

    def _wait(self, app, modal, tries: int) -> None:
        """Until the modal the last escape before the kept keys went to has gone, or has been
        ready (mounted, taking keys) for AFTER_ESCAPE_TRIES tries: the escape handed to it may
        wait in its queue until then (a loaded machine mounts a dialog slowly), and is not
        waited for past AFTER_ESCAPE_MAX_S."""
        top = app.screen
        if top is self.modal and top is not modal:
            modal, tries = top, 0              # another took its place, and had the escape
        if top is modal and tries < AFTER_ESCAPE_TRIES:
            ready = modal.is_mounted and getattr(modal, "taking_keys", True)
            if not ready and time.monotonic() - self.waited_from < AFTER_ESCAPE_MAX_S:
                tries = -1
            app.set_timer(AFTER_ESCAPE_WAIT_S, lambda: self._wait(app, modal, tries + 1))
            return
        self.waiting = False
        if not self.in_flight:
            self._send(app)

    def _send(self, app) -> None:
        """The kept keys round the app, in order; a key read before they are back goes behind."""
        keys, self.kept_keys = self.kept_keys, []
        self.in_flight += len(keys)
        self.sent_at = time.monotonic()
        for key in keys:
            key._after_escape = True
            app.post_message(key)
