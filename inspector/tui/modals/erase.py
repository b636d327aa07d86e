"""The erasure modal: what will be erased and retained, then the operator types the subject
(or, for erasure by id, the number of entries) and a reason to confirm."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ...store.erasure import ErasurePlan
from ...present.text import safe


class EraseModal(ModalScreen[str | None]):
    """Returns the reason once the confirmation matches, None on cancel."""

    BINDINGS = [Binding("escape", "cancel", "cancel"), Binding("ctrl+y", "confirm", "erase")]

    def __init__(self, plan: ErasurePlan, hidden: int = 0):
        super().__init__()
        self.plan = plan
        self.expected = plan.request.subject if plan.request.subject is not None else str(len(plan.erased))

    def compose(self) -> ComposeResult:
        plan = self.plan
        title = Text("Erase ", style="bold red")
        if plan.request.subject is not None:
            title.append("everything about ")
            title.append_text(safe(plan.request.subject, one_line=True, style="bold"))
        else:
            title.append(f"{len(plan.erased)} entries and what derives from them")
        body = Text(f"\n{len(plan.erased)} entries erased, {len(plan.redacted_seqs)} event bodies "
                    f"replaced, {len(plan.retained)} retained under legal hold.\n")
        body.append("erased: ", style="dim")
        body.append_text(safe(", ".join(plan.erased), one_line=True, max_chars=600))
        if plan.retained:
            body.append("\nretained: ", style="dim")
            body.append_text(safe(", ".join(plan.retained), one_line=True, max_chars=300))
        body.append("\n\nThis cannot be undone. A certificate with no erased value is written.", style="bold")
        what = "the subject" if plan.request.subject is not None else "the number of entries"
        with Vertical(id="erase-dialog"):
            yield Static(title)
            yield Static(body)
            yield Input(placeholder=f"type {what} to confirm", id="confirm-text")
            yield Input(placeholder="reason (a ticket id; never the subject)", id="reason")
            with Horizontal(id="plan-buttons"):
                yield Button("erase (ctrl+y)", variant="error", id="confirm")
                yield Button("cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#confirm-text", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "confirm-text":
            self.query_one("#reason", Input).focus()
        else:
            self.action_confirm()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_confirm() if event.button.id == "confirm" else self.action_cancel()

    def action_confirm(self) -> None:
        if self.query_one("#confirm-text", Input).value != self.expected:
            self.notify("The confirmation does not match: type it exactly.", severity="error")
            self.query_one("#confirm-text", Input).focus()
            return
        reason = self.query_one("#reason", Input).value.strip()
        if not reason:
            self.notify("A reason is required (a ticket id).", severity="error")
            self.query_one("#reason", Input).focus()
            return
        self.dismiss(reason)

    def action_cancel(self) -> None:
        self.dismiss(None)
