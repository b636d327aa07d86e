"""The Audit screen's enter: one event, its envelope, and the fields of the entry it changed —
before and after, the changed ones first. A secret value is masked until ctrl+r."""

from __future__ import annotations

import json
from datetime import datetime

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ...present.mask import is_secret, mask_value
from ...present.text import safe, safe_value
from ...store.model import format_time

ENVELOPE = ("actor", "memory_id", "batch", "reason", "hash")
FIELDS = ("entity", "attribute", "value", "kind", "layer", "source", "authority", "confidence",
          "observed_at", "valid_from", "valid_to", "scope", "subject", "justification", "context",
          "status", "held_reason", "retention", "expires_at", "sensitivity", "tags", "malformed")


def _value(row: dict | None, name: str):
    """A field of a loaded state as the log writes it: the value parsed, a time as RFC 3339
    (the instant, in UTC: the loaded tables keep no writer's offset)."""
    if row is None:
        return None
    value = row.get(name)
    if name == "value" and isinstance(value, str):
        return json.loads(value)
    if isinstance(value, datetime):
        return format_time(value)
    return value


def _secret(row: dict | None) -> bool:
    return row is not None and is_secret({**row, "value": _value(row, "value")})


class EventModal(ModalScreen[None]):
    BINDINGS = [Binding("escape,enter", "dismiss(None)", "close"),
                Binding("ctrl+r", "reveal", "reveal secret")]

    def __init__(self, after: dict, before: dict | None):
        super().__init__()
        self.after, self.before, self.revealed = after, before, False

    def compose(self) -> ComposeResult:
        with Vertical(id="event-dialog"):
            yield Static(self._envelope())
            with VerticalScroll(id="event-body"):
                yield Static(self._fields(), id="event-fields")
            yield Static(Text("escape closes · ctrl+r reveals a masked value", style="dim"))

    def _envelope(self) -> Text:
        out = Text(f"seq {self.after['seq']}  ", style="bold")
        out.append(f"{self.after['op']}  ", style="bold yellow")
        for name in ENVELOPE:
            value = self.after.get(name)
            if value is None:
                continue
            out.append(f"\n{name:<10} ", style="dim")
            out.append_text(safe(value, one_line=True, max_chars=300))
        if self.after.get("at") is not None:
            out.append(f"\n{'at':<10} ", style="dim")
            out.append(format_time(self.after["at"]))
        return out

    def _fields(self) -> Table | Text:
        if self.after.get("redacted"):
            return Text("Its body was erased: no field of it is kept.", style="dim")
        table = Table(box=None, pad_edge=False, header_style="bold", expand=True)
        table.add_column("FIELD", no_wrap=True)
        table.add_column("BEFORE", ratio=1, overflow="fold")
        table.add_column("AFTER", ratio=1, overflow="fold")
        # The state before it, when that event's body was erased since: its fields read null
        # and its status "erased" (an erase event read "status erased → erased", as if the
        # entry had been erased before it was)
        gone = self.before is not None and bool(self.before.get("redacted"))
        before_cell = Text("(first event)" if self.before is None else "(body erased)", style="dim")
        mask = {"before": _secret(self.before), "after": _secret(self.after)}
        # "malformed" is no field of a state: the loader's note, shown only where there is one
        fields = [f for f in FIELDS if f != "malformed" or _value(self.before, f) or _value(self.after, f)]
        changed = [f for f in fields if (_value(self.after, f) is not None if gone
                                         else _value(self.before, f) != _value(self.after, f))]
        for name in changed + [f for f in fields if f not in changed]:
            before, after = _value(self.before, name), _value(self.after, name)
            if name == "value" and not self.revealed:
                before = mask_value(before) if mask["before"] else before
                after = mask_value(after) if mask["after"] else after
            style = "bold" if name in changed else "dim"
            table.add_row(Text(name, style=style),
                          before_cell if self.before is None or gone else safe_value(before),
                          safe_value(after))
        return table

    def action_reveal(self) -> None:
        self.revealed = not self.revealed
        self.query_one("#event-fields", Static).update(self._fields())
