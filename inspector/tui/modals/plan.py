"""The confirmation modal of a curation action: the plan (what changes, how many the filter
hides, what it skips, the belief diff), a reason, confirm or cancel. The same plan that
`--dry-run` prints."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ...store.actions import Plan
from ...present.text import safe
from ..widgets.detail import value_text


def plan_table(plan: Plan) -> Table:
    out = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", expand=True)
    for name in ("ID", "FROM", "TO"):
        out.add_column(name, no_wrap=True, overflow="ellipsis")
    for draft in plan.drafts[:200]:
        out.add_row(safe(draft["memory_id"], one_line=True), Text(draft["body"]["before"]["status"]),
                    Text(draft["body"]["after"]["status"], style="bold"))
    if len(plan.drafts) > 200:
        out.add_row(Text(f"… and {len(plan.drafts) - 200} more", style="dim"), Text(""), Text(""))
    return out


def side(value: dict | None) -> Text:
    if value is None:
        return Text("(no belief)", style="dim")
    text = safe(value["memory_id"], one_line=True, style="bold")
    text.append(" ")
    text.append_text(value_text(value["value"], 36))
    return text


def diff_table(plan: Plan) -> Table:
    out = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", expand=True)
    for name in ("SCOPE", "KEY", "BEFORE", "AFTER"):
        out.add_column(name, no_wrap=True, overflow="ellipsis", ratio=1)
    for change in plan.belief_changes[:100]:
        out.add_row(safe(change["scope"] or '""', one_line=True),
                    safe(f"{change['entity']} · {change['attribute']}", one_line=True),
                    side(change["before"]), side(change["after"]))
    return out


class PlanModal(ModalScreen[str | None]):
    """Returns the reason on confirm, None on cancel."""

    BINDINGS = [Binding("escape", "cancel", "cancel"), Binding("ctrl+y", "confirm", "confirm")]

    def __init__(self, plan: Plan, hidden: int):
        super().__init__()
        self.plan, self.hidden = plan, hidden

    def compose(self) -> ComposeResult:
        plan = self.plan
        n = len(plan.affected)
        title = Text(f"{plan.request.action.capitalize()} {n} {'entry' if n == 1 else 'entries'}?",
                     style="bold")
        if self.hidden:
            title.append(f"  {self.hidden} of them not shown in the table as filtered", style="bold yellow")
        if plan.action.irreversible:
            title.append("  — this cannot be undone by release", style="bold red")
        with Vertical(id="plan-dialog"):
            yield Static(title, id="plan-title")
            with VerticalScroll(id="plan-body"):
                yield Static(plan_table(plan))
                if plan.skipped:
                    skipped = Text(f"skipped (status does not allow {plan.request.action}): ", style="dim")
                    skipped.append_text(safe(", ".join(f"{i} ({s})" for i, s in sorted(plan.skipped.items())),
                                             one_line=True, max_chars=400))
                    yield Static(skipped)
                yield Static(Text(f"beliefs that change: {len(plan.belief_changes)}", style="bold"))
                if plan.belief_changes:
                    yield Static(diff_table(plan))
            yield Input(placeholder="reason (required, goes into the audit log)", id="reason")
            with Horizontal(id="plan-buttons"):
                yield Button(f"{plan.request.action} (ctrl+y)", variant="error" if plan.action.irreversible
                             else "primary", id="confirm")
                yield Button("cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#reason", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_confirm()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_confirm() if event.button.id == "confirm" else self.action_cancel()

    def action_confirm(self) -> None:
        reason = self.query_one("#reason", Input).value.strip()
        if not reason:
            self.notify("A reason is required: say why, for the audit log.", severity="error")
            self.query_one("#reason", Input).focus()
            return
        self.dismiss(reason)

    def action_cancel(self) -> None:
        self.dismiss(None)
