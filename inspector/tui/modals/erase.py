"""The erasure dialog: what erasure would take and what legal hold keeps, then the operator types
the subject (or, for erasure by id, the number of entries) and a reason to confirm. Nothing is
called erased before it is; a reason the store refuses (one that names the subject) keeps the
dialog open with the refusal shown."""

from __future__ import annotations

import json

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from ...present.text import SPACE_MARK, decode, render, safe, safe_name, safe_value
from ..widgets.typed_input import SEPARATOR
from .dialog import ActionDialog, PlanBody, TypedInput

LISTED = 200            # entries listed by id, key and value; the rest are counted
VALUE_CHARS = 60        # a value longer than this is cut (the Erasure preview shows it whole)
ID_CELLS = 40           # an id wider than this goes on over the next lines, never cut


def would_erase(plan) -> str:
    """"6 entries would be erased, 6 event bodies replaced, 0 retained under legal hold."."""
    def counted(n: int, one: str, many: str) -> str:
        return f"{n} {one if n == 1 else many}"
    return (f"{counted(len(plan.erased), 'entry', 'entries')} would be erased, "
            f"{counted(len(plan.redacted_seqs), 'event body', 'event bodies')} replaced, "
            f"{len(plan.retained)} retained under legal hold.")


def entries_table(rows: list[dict]) -> Table:
    """Each entry as ID, KEY (entity · attribute) and VALUE, one line each: the id and the key
    whole (folded when long), the value cut to fit, masked when the entry is secret (the rows
    come from session.erasure_rows, masked as every table's are); all of it sanitized."""
    out = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", expand=True)
    out.add_column("ID", overflow="fold", max_width=ID_CELLS)
    out.add_column("KEY", overflow="fold", ratio=2)
    out.add_column("VALUE", no_wrap=True, overflow="ellipsis", ratio=3)
    for row in rows[:LISTED]:
        text = row.get("value")
        if row.get("entity") is None and text is None:      # not in the store's entries
            key, value = Text("(not found)", style="dim"), Text("")
        else:
            key = safe(f"{row.get('entity')} · {row.get('attribute')}", one_line=True)
            value = safe_value(None if text is None else json.loads(text), VALUE_CHARS)
        out.add_row(safe(row["memory_id"], one_line=True, edges=True), key, value)
    if len(rows) > LISTED:
        out.add_row(Text(f"… and {len(rows) - LISTED} more", style="dim"), Text(""), Text(""))
    return out


class EraseModal(ActionDialog):
    """Closes with the applied plan (its certificate) once the confirmation matches, or None."""

    start_field = "#confirm-text"

    def __init__(self, plan, hidden: int = 0, **kw):
        super().__init__(plan, hidden, **kw)
        self.expected = plan.request.subject if plan.request.subject is not None else str(len(plan.erased))

    def compose(self) -> ComposeResult:
        plan = self.plan
        title = Text("Erase ", style="bold red")
        if plan.request.subject is not None:
            title.append("everything about ")
            title.append_text(safe_name(plan.request.subject, style="bold"))
        else:
            # the entries asked for, then the count in all: "Erase 2 entries and what derives
            # from them" was said of one entry and its descendant (helper-79)
            n, total = len(plan.request.ids), len(plan.erased)
            title.append(f"{n} {'entry' if n == 1 else 'entries'} and what derives from "
                         f"{'it' if n == 1 else 'them'}")
            if total != n:
                title.append(f" ({total} entries in all)")
        title.append("?")
        what = "the subject" if plan.request.subject is not None else "the number of entries"
        with Vertical(id="erase-dialog"):
            yield Static(title)
            yield Static(Text(f"\n{would_erase(plan)}"))
            for warning in getattr(plan, "warnings", ()):      # ids that hold personal data
                yield Static(safe(f"⚠ {warning}", style="bold yellow"), classes="erase-warning")
            # Never focused (pageup and pagedown scroll it from the fields): a key typed while
            # the dialog opens goes to the confirmation field, not to the list.
            with PlanBody(id="plan-body"):
                yield from self.listed("would be erased:", plan.erased, "erase")
                if plan.retained:
                    yield from self.listed("retained under legal hold (not erased):",
                                           plan.retained, "retain")
            yield Static(Text("This cannot be undone. A certificate that holds no erased value "
                              "is written.", style="bold"))
            yield from self.status_line()
            # Typed ahead: the confirmation, then (after a tab or enter) the reason.
            confirm, _, reason = self.typed.partition(SEPARATOR)
            yield TypedInput(value=confirm, placeholder=f"type {what} to confirm",
                             id="confirm-text", select_on_focus=False)
            yield TypedInput(value=reason.replace(SEPARATOR, ""),
                             placeholder="reason (a ticket id; never the subject)", id="reason",
                             select_on_focus=False)
            with Horizontal(id="plan-buttons"):
                yield Button("erase (ctrl+y)", variant="error", id="confirm")
                yield Button("cancel (esc)", id="cancel")

    def listed(self, heading: str, ids: list[str], fate: str) -> ComposeResult:
        """The entries of one fate, by id, key and value (the planner's rows: context
        "entries"); by id only if it had none to give."""
        yield Static(Text(heading, style="dim"), classes="erase-heading")
        rows = [r for r in self.context.get("entries") or () if r.get("fate") == fate]
        if rows:
            yield Static(entries_table(rows), classes="erase-entries")
        else:
            yield Static(safe(", ".join(ids), one_line=True, max_chars=600))

    def on_mount(self) -> None:
        self.focus_first(self.query_one("#reason" if SEPARATOR in self.typed else "#confirm-text", Input))

    def field_after_enter(self, field: Input) -> Input | None:
        """Enter in the confirmation moves on to the reason (TypedInput moves the focus at once)."""
        return self.query_one("#reason", Input) if field.id == "confirm-text" else None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "confirm-text":
            self.focus_now(self.query_one("#reason", Input))
        else:
            self.action_confirm(event.value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_confirm() if event.button.id == "confirm" else self.action_cancel()

    REASON_REQUIRED = "A reason is required (a ticket id)."

    def confirmation(self, submitted: str | None = None) -> str | None:
        typed = self.query_one("#confirm-text", Input).value
        # What was typed is the subject as written, or as the dialog draws it (its escapes
        # typed as shown: `user:\u041dans`, whose Cyrillic Н no Latin keyboard types).
        if typed != self.expected and decode(typed, one_line=True) != self.expected:
            hint = ""
            core = self.expected.strip()
            if render(core, one_line=True, edges=True) != core:
                hint = " (the subject holds characters drawn as escapes: type them as shown)"
            if typed.strip() == self.expected.strip():
                # Say whose blanks differ: the subject's, or only what was typed (helper-72:
                # the message blamed a subject that has none).
                hint = (f" (the subject begins or ends with blanks, drawn {SPACE_MARK})"
                        if self.expected != self.expected.strip() else
                        " (what you typed begins or ends with blanks; the subject does not)")
            self._status(Text("The confirmation does not match: type it exactly" + hint + ".",
                              style="bold red"))
            self.focus_now(self.query_one("#confirm-text", Input))
            return None
        return self.reason(submitted)
