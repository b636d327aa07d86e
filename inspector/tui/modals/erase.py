"""The erasure dialog: what erasure would take and what legal hold keeps, then the operator types
the subject (or, for erasure by id, the number of entries) and a reason to confirm. Nothing is
called erased before it is; a reason the store refuses (one that names the subject) keeps the
dialog open with the refusal shown."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from ...present.text import safe
from ..widgets.typed_input import SEPARATOR
from .dialog import ActionDialog, TypedInput


def would_erase(plan) -> str:
    """"6 entries would be erased, 6 event bodies replaced, 0 retained under legal hold."."""
    def counted(n: int, one: str, many: str) -> str:
        return f"{n} {one if n == 1 else many}"
    return (f"{counted(len(plan.erased), 'entry', 'entries')} would be erased, "
            f"{counted(len(plan.redacted_seqs), 'event body', 'event bodies')} replaced, "
            f"{len(plan.retained)} retained under legal hold.")


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
            title.append_text(safe(plan.request.subject, one_line=True, style="bold"))
        else:
            n = len(plan.erased)
            title.append(f"{n} {'entry' if n == 1 else 'entries'} and what derives from them")
        title.append("?")
        body = Text(f"\n{would_erase(plan)}\n")
        body.append("would be erased: ", style="dim")
        body.append_text(safe(", ".join(plan.erased), one_line=True, max_chars=600))
        if plan.retained:
            body.append("\nretained: ", style="dim")
            body.append_text(safe(", ".join(plan.retained), one_line=True, max_chars=300))
        body.append("\n\nThis cannot be undone. A certificate that holds no erased value is "
                    "written.", style="bold")
        what = "the subject" if plan.request.subject is not None else "the number of entries"
        with Vertical(id="erase-dialog"):
            yield Static(title)
            yield Static(body)
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

    def on_mount(self) -> None:
        self.query_one("#reason" if SEPARATOR in self.typed else "#confirm-text", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "confirm-text":
            self.query_one("#reason", Input).focus()
        else:
            self.action_confirm(event.value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_confirm() if event.button.id == "confirm" else self.action_cancel()

    REASON_REQUIRED = "A reason is required (a ticket id)."

    def confirmation(self, submitted: str | None = None) -> str | None:
        if self.query_one("#confirm-text", Input).value != self.expected:
            self._status(Text("The confirmation does not match: type it exactly.", style="bold red"))
            self.query_one("#confirm-text", Input).focus()
            return None
        return self.reason(submitted)
