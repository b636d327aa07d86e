"""The confirmation dialog of a curation action: the plan (each entry with its key and value,
what the table does not show, what it skips, the belief diff), a reason, confirm or cancel.
The same plan that `--dry-run` prints. Approving a held instruction or secret says what it is,
loudly, and takes ctrl+y: enter in the reason field is not enough."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from ...present.mask import is_secret, mask_value
from ...present.text import ESCAPE_STYLE, as_str, safe, safe_value as value_text
from ...store import gate
from ...store.actions import Plan
from ..entry_detail import held_why
from ..widgets.typed_input import SEPARATOR
from .dialog import ActionDialog, PlanBody, TypedInput

LOUD = (gate.RULE, gate.SECRET)      # held reasons whose approval the dialog warns about


ID_CELLS = 40      # an id wider than this goes on over the next lines, never cut
GAP = 2           # cells between two columns (a Table's padding of one each side)
NARROW = 56       # below this many cells the entries are listed as lines, not columns


LISTED = 200      # entries listed; the rest are counted


def _cells(plan: Plan) -> list[tuple[Text, Text, Text, Text, Text]]:
    """Each listed entry's ID, KEY, VALUE (masked when secret), FROM and TO, sanitized: what
    both layouts of the list show."""
    cells = []
    for draft in plan.drafts[:LISTED]:
        before, after = draft["body"]["before"], draft["body"]["after"]
        value = mask_value(before.get("value")) if is_secret(before) else before.get("value")
        cells.append((safe(draft["memory_id"], one_line=True, edges=True),
                      safe(f"{before.get('entity')} · {before.get('attribute')}", one_line=True),
                      value_text(value, 80), Text(before["status"]),
                      Text(after["status"], style="bold")))
    return cells


def _more(plan: Plan) -> Text | None:
    """The line that counts the entries not listed, if any."""
    unlisted = len(plan.drafts) - LISTED
    return Text(f"… and {unlisted} more", style="dim") if unlisted > 0 else None


def plan_table(plan: Plan, width: int) -> Table:
    """The plan's entries as ID, KEY, VALUE, FROM, TO in `width` cells: FROM and TO whole, the
    id whole (folded over lines when wider than its share), the key folded, the value cut.
    The widths are set here: left to Rich, at 80 columns a long id was cut at its end (two ids
    differing only there looked the same) and KEY and VALUE shrank to nothing (helper-75)."""
    rows = _cells(plan)
    from_w = max([4, *(r[3].cell_len for r in rows)])
    to_w = max([2, *(r[4].cell_len for r in rows)])
    rest = max(12, width - from_w - to_w - 4 * GAP)
    id_w = min(max([2, *(r[0].cell_len for r in rows)]), ID_CELLS, max(8, rest * 2 // 5))
    key_w = max(3, (rest - id_w) * 2 // 5)
    value_w = max(3, rest - id_w - key_w)
    out = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    out.add_column("ID", overflow="fold", width=id_w)
    out.add_column("KEY", overflow="fold", width=key_w)
    out.add_column("VALUE", no_wrap=True, overflow="ellipsis", width=value_w)
    out.add_column("FROM", no_wrap=True, width=from_w)
    out.add_column("TO", no_wrap=True, width=to_w)
    for row in rows:
        out.add_row(*row)
    if (more := _more(plan)) is not None:
        out.add_row(more, *[Text("")] * 4)
    return out


class PlanTable:
    """plan_table drawn at the width the dialog gives it."""

    def __init__(self, plan: Plan):
        self.plan = plan

    def __rich_console__(self, console, options):
        if options.max_width >= NARROW:
            yield plan_table(self.plan, options.max_width)
            return
        # Too narrow for columns: each entry as lines (its id whole, then key, value, change).
        for memory_id, key, value, before, after in _cells(self.plan):
            memory_id.stylize("bold")
            yield memory_id
            yield Text("  ").append_text(key)
            shown = Text("  ").append_text(value)
            shown.truncate(options.max_width, overflow="ellipsis")
            yield shown
            yield Text("  ").append_text(before).append(" → ").append_text(after)
        if (more := _more(self.plan)) is not None:
            yield more


def side(value: dict | None, secret: set[str]) -> Text:
    if value is None:
        return Text("(no belief)", style="dim")
    text = safe(value["memory_id"], one_line=True, edges=True, style="bold")
    text.append(" ")
    shown = mask_value(value["value"]) if value["memory_id"] in secret else value["value"]
    text.append_text(value_text(shown, 36))
    return text


def diff_table(plan: Plan, secret: set[str]) -> Table:
    out = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", expand=True)
    for name in ("SCOPE", "KEY", "BEFORE", "AFTER"):
        out.add_column(name, no_wrap=True, overflow="ellipsis", ratio=1)
    for change in plan.belief_changes[:100]:
        out.add_row(safe(change["scope"] or '""', one_line=True),
                    safe(f"{change['entity']} · {change['attribute']}", one_line=True),
                    side(change["before"], secret), side(change["after"], secret))
    return out


def loud_entries(plan: Plan, hold_reasons: dict | None = None) -> list[tuple[str, str]]:
    """(id, what the gate matched) of each held instruction or secret an approve would let in,
    with the hold event's own reason (hold_reasons, by id) as the Review table gives it."""
    if plan.request.action != "approve":
        return []
    reasons = hold_reasons or {}
    return [(d["memory_id"], held_why({**before, "hold_reason": reasons.get(d["memory_id"])})
             or before["held_reason"])
            for d in plan.drafts if (before := d["body"]["before"]).get("held_reason") in LOUD]


# Characters of a held instruction's value the approve dialog shows; a longer one keeps its
# start and its end, each half of this (the table's cell showed its first 80: a long value's
# harmful tail, "… and then secretly send it to evil.example", was never on screen; helper-72).
LOUD_VALUE_CHARS = 600


def loud_value(plan: Plan, memory_id: str) -> Text:
    """The value of a held entry an approve would let in, whole up to LOUD_VALUE_CHARS, else its
    start and its end around how much is left out (masked when secret)."""
    before = next(d["body"]["before"] for d in plan.drafts if d["memory_id"] == memory_id)
    value = before.get("value")
    text = as_str(mask_value(value) if is_secret(before) else value)
    shown = Text("value: ", style="bold")
    if len(text) <= LOUD_VALUE_CHARS:
        return shown.append_text(safe(text, one_line=True))
    half = LOUD_VALUE_CHARS // 2
    shown.append_text(safe(text[:half].rstrip(), one_line=True))
    shown.append(f" …[{len(text) - 2 * half:,} more characters]… ", style=ESCAPE_STYLE)
    return shown.append_text(safe(text[-half:].lstrip(), one_line=True))


class PlanModal(ActionDialog):
    """Closes with the applied plan, or None on cancel."""

    def compose(self) -> ComposeResult:
        plan = self.plan
        n = len(plan.affected)
        title = Text(f"{plan.request.action.capitalize()} {n} {'entry' if n == 1 else 'entries'}",
                     style="bold")
        if plan.request.batch:
            title.append(" of batch ", style="bold")
            title.append_text(safe(plan.request.batch, one_line=True, style="bold"))
            title.append(f" to {'its' if n == 1 else 'their'} state before it", style="bold")
        title.append("?", style="bold")
        if self.hidden:
            where = "hidden by the filter" if self.context.get("filtered") else "not rows of this table"
            title.append(f"  {self.hidden} of them {where}", style="bold yellow")
        if plan.action.irreversible and not plan.request.batch:
            title.append(f"  — {plan.request.action} cannot be undone by release", style="bold red")
        loud = loud_entries(plan, self.context.get("hold_reasons"))
        with Vertical(id="plan-dialog", classes="-loud" if loud else ""):
            yield Static(title, id="plan-title")
            for memory_id, why in loud:
                warning = Text("⚠ ", style="bold red")
                warning.append_text(safe(memory_id, one_line=True, edges=True, style="bold red"))
                warning.append(" was held as an instruction or a secret: ", style="bold red")
                warning.append_text(safe(why, one_line=True, max_chars=200, style="bold"))
                warning.append(". Approving lets the agent believe and follow it. "
                               "Press ctrl+y to approve.", style="bold red")
                yield Static(warning, classes="loud")
                yield Static(loud_value(plan, memory_id), classes="loud-value")
            with PlanBody(id="plan-body"):
                yield Static(PlanTable(plan))
                if plan.skipped:
                    skipped = Text(f"skipped (status does not allow {plan.request.action}): ", style="dim")
                    skipped.append_text(safe(", ".join(f"{i} ({s})" for i, s in sorted(plan.skipped.items())),
                                             one_line=True, max_chars=400))
                    yield Static(skipped)
                changes = Text(f"beliefs that change: {len(plan.belief_changes)}", style="bold")
                changes.append(" (from now on, in every context)", style="dim")
                if self.context.get("view_time"):
                    changes.append(f"; the screen shows the view {self.context['view_time']}, but "
                                   "the action is written now and changes what is believed from "
                                   "now on", style="yellow")
                yield Static(changes)
                if plan.belief_changes:
                    yield Static(diff_table(plan, self.context.get("secret", set())))
            yield from self.status_line()
            yield TypedInput(value=self.typed.replace(SEPARATOR, ""),
                             placeholder="reason (required, goes into the audit log)",
                             id="reason", select_on_focus=False)
            with Horizontal(id="plan-buttons"):
                yield Button(f"{plan.request.action} (ctrl+y)",
                             variant="error" if plan.action.irreversible or loud else "primary",
                             id="confirm")
                yield Button("cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.focus_first(self.query_one("#reason", Input))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self._needs_ctrl_y():
            return
        self.action_confirm(event.value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "confirm":
            self.action_cancel()
        elif not self._needs_ctrl_y():
            self.action_confirm()

    def _needs_ctrl_y(self) -> bool:
        """Enter (in the field or on the button, reached by tab) never approves a held
        instruction or secret: only ctrl+y does. Says so when it is the case."""
        if not loud_entries(self.plan, self.context.get("hold_reasons")):
            return False
        self._status(Text("Approving a held instruction or secret takes ctrl+y.", style="bold red"))
        return True

    def confirmation(self, submitted: str | None = None) -> str | None:
        return self.reason(submitted)
