"""The text field every screen and dialog types into (TypedInput)."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

# A field boundary typed ahead (tab, or enter in an erasure's first field) before the
# dialog with the fields was there: the dialog splits what was typed on it.
SEPARATOR = "\t"


# The keys that leave a screen's own field at once, and the screen's action that does it.
LEAVING_KEYS = {"escape": "action_leave_input", "down": "action_to_list"}


class TypedInput(Input):
    """A field that takes its editing keys in the order they were typed. Textual runs a
    widget's bindings (enter, backspace, the arrows) and the app's tab only after the key has
    gone round the app, while a printable key is inserted at once: in a burst, "spam", enter,
    "x" submitted "spamx"; "INC-71", backspace, "2" kept "INC-71". Here those keys act when
    they reach the field, like the letters around them.

    A key that moves on (tab, or enter, whose field's screen may move the focus) also sends
    the rest of the burst where the focus went: the app handed those keys to this field
    before the focus moved ("user:42", tab, "DSR-1" typed all of it into the first field).
    They are held until the focus has settled, then go to the field of this screen that has
    it (else to this one, as before). Escape in a screen's own field leaves it for the table
    at once (the screen's action_leave_input moves the focus without waiting for a refresh,
    also for an escape that reached the screen before this field heard of its focus: "t",
    escape, "4"), and the rest of the burst goes round the app as typed. Every field an operator types into is one: a dialog's, and a screen's own
    (filter, context, as-of, the Diff window, the Erasure subject)."""

    ORDERED = frozenset({"enter", "backspace", "delete", "left", "right", "home", "end",
                         "ctrl+a", "ctrl+e", "ctrl+k", "ctrl+u", "ctrl+w", "ctrl+d", "ctrl+left",
                         "ctrl+right", "alt+backspace", "ctrl+backspace"})

    _held: list[events.Key] | None = None   # keys after a tab or enter, until the focus settles
    enter_separates = False     # enter keeps a SEPARATOR in the field (a dialog still planning)

    async def _on_key(self, event: events.Key) -> None:
        if self._held is not None:
            event.stop()
            event.prevent_default()
            self._held.append(event)
            return
        if event.key in ("tab", "shift+tab") and not self.disabled:
            event.stop()
            event.prevent_default()
            (self.screen.focus_next if event.key == "tab" else self.screen.focus_previous)()
            if self.screen.focused is self and event.key == "tab":
                # The only field (a dialog still planning): the tab is kept, in order, for
                # the dialog that follows (SEPARATOR: its next field).
                self.insert_text_at_cursor(SEPARATOR)
            else:
                self._hold()
            return
        if len(event.key) == 5 and event.key.startswith("alt+") \
                and hasattr(self.screen, "action_leave_input"):
            # escape and a key typed as one read ("esc 4": keyroute.py): the
            # escape, then the key round the app
            event.stop()
            event.prevent_default()
            self.screen.action_leave_input()
            self._hold(to_app=True)
            self._held.append(events.Key(event.key[4:], event.key[4:]))
            return
        leave = LEAVING_KEYS.get(event.key)
        if leave and hasattr(self.screen, leave):
            # A screen's own field: escape leaves it for the table now, ↓ in a field above a
            # list (the Erasure subject) for the list, and the rest of the burst goes round the
            # app as typed (it was handed to this field and went into it: "escape", "4" did
            # not reach the Quarantine screen; "↓, enter" previewed the text typed, not the row
            # picked).
            event.stop()
            event.prevent_default()
            getattr(self.screen, leave)()
            self._hold(to_app=True)
            return
        if not self.value and event.character and not self.disabled:
            fate = getattr(self.screen, "empty_field_key", lambda field, key: None)(self, event)
            if fate is not None:
                # A key that cannot begin what this field takes (the screen says which):
                # "leave" sends it round the app (a screen's number), "drop" swallows it.
                event.stop()
                event.prevent_default()
                if fate == "leave":
                    self.screen.action_leave_input()
                    self._hold(to_app=True)
                    self._held.append(events.Key(event.key, event.character))
                return
        if event.key == "ctrl+y" and not self.disabled and hasattr(self.screen, "action_confirm"):
            # A dialog's confirmation, run here, in the order the keys were typed: the field
            # holds every key typed before it and none after. Gone round the app to the
            # dialog's binding, it came after the rest of the burst was typed into the field
            # ("R1", ctrl+y, "abc" wrote the reason "R1abc": helper-79).
            event.stop()
            event.prevent_default()
            await self.screen.run_action("confirm")
            return
        if event.key == "enter" and self.enter_separates and not self.disabled:
            event.stop()
            event.prevent_default()
            self.insert_text_at_cursor(SEPARATOR)
            return
        if event.key in self.ORDERED and not self.disabled:
            for binding in self._bindings.key_to_bindings.get(event.key, ()):
                event.stop()
                event.prevent_default()
                await self.run_action(binding.action)
                if event.key == "enter":
                    if getattr(self.screen, "enter_leaves", lambda field: False)(self):
                        # A screen's field whose enter leaves for the table (the filter): the
                        # rest of the burst goes round the app as typed, as after an escape
                        # (helper-72: "/timeout", enter, "j", "Q" filtered on "timeoutjQ").
                        self.screen.action_leave_input()
                        self._hold(to_app=True)
                    else:
                        self._follow_enter()
                        self._hold()
                return
        await super()._on_key(event)

    def _follow_enter(self) -> None:
        """Move the focus now where this field's screen moves it on enter (`field_after_enter`):
        the screen hears of the enter from the Submitted message, which can come after the
        held keys are released on a loaded machine, and they went into this field ("user:42",
        enter, "DSR-1" kept "user:42DSR-1" in an erasure's confirmation; CI, stop 54)."""
        after = getattr(self.screen, "field_after_enter", None)
        field = after(self) if after is not None else None
        if field is not None and field.focusable:
            self.screen.set_focus(field)

    def _hold(self, to_app: bool = False) -> None:
        self._held = []
        self.call_after_refresh(self._release_to_app if to_app else self._release)

    def _release_to_app(self) -> None:
        """The held keys, in order, to the app, as if typed now (its bindings and filters)."""
        held, self._held = self._held or [], None
        for event in held:
            self.app.post_message(events.Key(event.key, event.character))

    def _release(self) -> None:
        """The held keys, in order, to the field that has the focus now, if it is another field
        of this screen; else to this field, as before (never to a table or a button: after an
        enter that closed a dialog, the rest of the burst must not act on the screen behind)."""
        held, self._held = self._held or [], None
        target = self.screen.focused if self.is_attached else None
        if not isinstance(target, TypedInput) or target.screen is not self.screen:
            target = self
        for event in held:
            target.post_message(events.Key(event.key, event.character))
