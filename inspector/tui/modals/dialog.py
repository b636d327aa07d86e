"""What every action dialog shares. The dialog opens on the key press, before the plan exists
(`Pending`), so that what the operator types next — a reason — lands in it and never in the
table behind; a refused plan is shown in that dialog, which only escape closes. Once confirmed,
the dialog stays open while the write runs: a write the store refuses (a reason that names the
subject, a log that changed) is shown in it and the operator can correct it. It closes when the
write is done (`done`)."""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual import events
from textual._time import get_time
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.errors import NoWidget
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...present.text import safe
from ..widgets.typed_input import SEPARATOR, TypedInput  # noqa: F401 (TypedInput re-exported: the dialogs' field)


# The fewest lines of a plan's list a dialog must show to be confirmed: a table's header and its
# first row, or an entry's id and key.
BODY_LINES = 2


class TypeAhead:
    """What is typed while a dialog opens goes into the field it starts in, in order, never
    lost and never to the table behind. A key the app reads while the dialog is on top but not
    ready is kept (`hold`) and handed on once its field has the focus. A key typed in the
    burst that opened the dialog, which the app handed to the screen below, comes here too
    (InspectorApp._on_key); printable, with nothing focused, it is kept until the field is
    there. The fields keep what was typed when they get the focus (select_on_focus=False):
    the next key adds to it."""

    start_field = "#reason"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.opened_at = get_time()
        self._early: list[str] = []        # typed before the start field was there
        self._before_ready: list[events.Key] = []
        self.taking_keys = False
        self._focus_waits = 0
        self._focus_first = None           # the field the dialog focuses on mounting

    def focus_first(self, field) -> None:
        """Focus the field the dialog starts in (on mounting), at once (`focus_now`): the kept
        keys wait for it. From the app's queue, on a loaded machine, it came after the kept
        keys had tabbed on to the reason and took the focus back (CI, stops 52 and 53)."""
        self._focus_first = field
        self.focus_now(field)

    def focus_now(self, field) -> None:
        """Give `field` the focus now, not from the app's queue: keys typed ahead and handed on
        meanwhile follow the focus (TypedInput holds what comes after a tab or an enter until
        the next refresh), and a focus set later would take it back from where they moved it.
        A field that cannot take the focus yet is focused from the queue."""
        self.set_focus(field)
        if self.focused is not field:
            field.focus()

    def hold(self, event: events.Key) -> bool:
        """Keep a key the app read while this dialog is on top but not yet ready (its field
        mounted and focused): handed on now, it would go to the screen, and reach the field
        only after keys typed later, which the app hands straight to the field once it has
        the focus ("user:42" typed as the erase dialog opened came out "ser:42"). Returns
        whether it was kept; `_take_keys` hands them on in order."""
        if not self.holds(event):
            return False
        self._before_ready.append(event)
        return True

    def holds(self, event: events.Key) -> bool:
        """Whether `event`, read while this dialog is on top, is one it keeps until ready."""
        return not self.taking_keys and not getattr(event, "_released", False)

    # How long the kept keys wait for the field the dialog focuses on mounting.
    FOCUS_WAIT_S = 2.0

    async def _take_keys(self) -> None:
        """The dialog is ready: what was typed before its field was there goes in, then the
        keys the app kept, in order, each as the app hands a key on (after an escape that
        closed the dialog, to the screen below, as typed); a key read meanwhile is kept behind
        them, until none is left. Not before the field it focuses on mounting (`focus_first`)
        has the focus: that focus is set from the app's queue, which on a loaded machine comes
        after this refresh, and until then the screen's first field has it ("DSR-1", typed for
        the erase dialog's reason, came out in its confirmation: "user:42DSR-1")."""
        wanted = self._focus_first
        if wanted is not None and self.focused is not wanted and \
                get_time() - self.opened_at < self.FOCUS_WAIT_S:
            if self._focus_waits == 0:
                self.app.call_later(self._take_keys)      # behind the focus, in the app's queue
            else:
                self.set_timer(0.02, self._take_keys)
            self._focus_waits += 1
            return
        self._type_early()
        while self._before_ready:
            event = self._before_ready.pop(0)
            event._released = True
            await self.app.on_event(event)
        self.taking_keys = True

    def stale(self, event: events.Key) -> bool:
        """A key made before this dialog was (typed in the burst that opened it)."""
        return event.time < self.opened_at

    def early(self) -> str:
        """What was typed before the field was there."""
        return "".join(self._early)

    def separates(self, key: str) -> bool:
        """Whether `key`, typed before a field had the focus, is the boundary to the next
        field (kept as SEPARATOR, in order, as the field would keep it)."""
        return False

    def on_key(self, event: events.Key) -> None:
        if self.focused is not None or getattr(self, "writing", False):
            return
        if self.separates(event.key):
            character = SEPARATOR
        elif event.is_printable and event.character:
            character = event.character
        else:
            return
        event.stop()
        event.prevent_default()
        fields = self.query(self.start_field)
        if not fields:
            self._early.append(character)
            return
        field = fields.first(Input)
        if not field.disabled:
            self.focus_now(field)
            field.insert_text_at_cursor(character)

    def on_mount(self) -> None:
        self.call_after_refresh(self._take_keys)

    def _type_early(self) -> None:
        kept = self.early()
        if kept:
            self._early = []
            self.query_one(self.start_field, Input).insert_text_at_cursor(kept)


class Pending(TypeAhead, ModalScreen[None]):
    """From the key press until the plan is made, or the refusal if it is not."""

    # ctrl+y too: typed before the plan was on screen, it confirms nothing, and says so (it was
    # dropped without a word: helper-62)
    BINDINGS = [Binding("escape", "close", "close"), Binding("enter", "hold", show=False),
                Binding("ctrl+y", "hold", show=False)]

    def __init__(self, action: str, ids: list[str], subject: str | None = None,
                 batch: str | None = None):
        super().__init__()
        self.action, self.ids, self.subject, self.batch = action, ids, subject, batch
        self.refusal: str | None = None

    def compose(self) -> ComposeResult:
        what = Text(f"{self.action.capitalize()} ", style="bold")
        if self.batch is not None:
            what.append("batch ")
            what.append_text(safe(self.batch, one_line=True, style="bold"))
        elif self.subject is not None:
            what.append("everything about ")
            what.append_text(safe(self.subject, one_line=True, style="bold"))
        else:
            what.append_text(safe(", ".join(self.ids), one_line=True, max_chars=200))
        with Vertical(id="plan-dialog"):
            yield Static(what, id="plan-title")
            yield Static(Text("planning … (nothing is written until you confirm)", style="italic"),
                         id="plan-status")
            yield TypedInput(placeholder="reason (required, goes into the audit log)", id="reason",
                             select_on_focus=False)

    def on_mount(self) -> None:
        field = self.query_one("#reason", TypedInput)
        # The erasure dialog asks for the subject, then the reason: enter after the first is
        # its next field, as in that dialog (kept for it, in order).
        field.enter_separates = self.action == "erase"
        self.focus_first(field)

    def separates(self, key: str) -> bool:
        # A tab (or an erasure's enter) that came before the field was mounted and focused:
        # "user:42", tab, "DSR-1" typed while the dialog opened otherwise lost the tab to the
        # app, and the plan's dialog got "user:42DSR-1" as its subject (seen under load).
        return key == "tab" or (key == "enter" and self.action == "erase")

    def typed(self) -> str:
        fields = self.query("#reason")
        return (fields.first(Input).value if fields else "") + self.early()

    HAND_OVER_TRIES = 100

    def hand_over(self, successor: Callable[[str], ModalScreen]) -> None:
        """Put `successor(typed)` (the plan's dialog) in this dialog's place once every key
        handed to it is typed. Keys the app handed on before the plan came may still wait in
        this screen's queue or its field's, and would go with this screen (seen in CI under
        load: "user:42", enter, "DSR-1" never reached the erase dialog's reason). So the
        switch waits for both queues to be empty, and happens in one step with reading what
        was typed: a key read after it goes to the successor."""
        self._successor = successor
        self._tries = 0
        self.call_later(self._hand_over)

    def _hand_over(self) -> None:
        if self.app.screen is not self:            # closed (escape) meanwhile
            return
        if not self.taking_keys:
            # Keys kept until it was ready go first. Waited for on a timer: asked again after
            # each refresh, this screen's queue never emptied and the loop ran nothing else, so
            # the focus its readiness waits for never came, and the app hung.
            self.set_timer(0.02, self._hand_over)
            return
        fields = self.query("#reason")
        waiting = [pump for pump in (self, fields.first() if fields else None)
                   if pump is not None and pump.message_queue_size]
        if waiting and self._tries < self.HAND_OVER_TRIES:
            self._tries += 1
            waiting[-1].call_later(self._hand_over)
            return
        self.app.switch_screen(self._successor(self.typed()))

    def refuse(self, message: str) -> None:
        """The plan was refused: say so where the operator looks; escape closes."""
        self.refusal = message
        text = Text("Refused: ", style="bold red")
        text.append_text(safe(message, max_chars=600))
        text.append("\nPress escape to close.", style="bold")
        self.query_one("#plan-status", Static).update(text)
        self.query_one("#reason", Input).placeholder = "(refused: escape closes)"

    def action_hold(self) -> None:
        if self.refusal is not None:
            self.notify("Refused: nothing to confirm. Press escape to close.", severity="warning")
        else:
            self.notify("Still planning: nothing is confirmed yet. Review the plan when it "
                        "appears, then confirm.", severity="warning", timeout=4)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_hold()

    def action_close(self) -> None:
        self.dismiss(None)


class PlanBody(VerticalScroll):
    """The scrolling list of a plan's dialog; never focused (pageup and pagedown scroll it from
    the fields, so a key typed while the dialog opens goes to its field). Each time it is laid
    out anew, its dialog says how much of it is out of sight (ActionDialog._say_more)."""

    can_focus = False

    def on_resize(self) -> None:
        say = getattr(self.screen, "_say_more", None)
        if say is not None:
            self.call_after_refresh(say)


class ActionDialog(TypeAhead, ModalScreen[object]):
    """A reviewed plan, confirmed with a reason; subclasses draw the plan and check the
    confirmation. The app applies it (`app.apply_plan`) and calls `failed` or `done`."""

    BINDINGS = [Binding("escape", "cancel", "cancel"), Binding("ctrl+y", "confirm", "confirm"),
                Binding("pageup", "scroll_plan(-1)", "scroll the plan up", show=False),
                Binding("pagedown", "scroll_plan(1)", "scroll the plan down", show=False)]

    writing = False
    outdated = False        # the store changed since the plan: it can no longer be confirmed
    REASON_REQUIRED = "A reason is required: say why, for the audit log."

    def __init__(self, plan, hidden: int = 0, *, typed: str = "", **context):
        super().__init__()
        self.plan, self.hidden, self.typed, self.context = plan, hidden, typed, context

    def status_line(self) -> ComposeResult:
        yield Static(id="plan-status")

    def confirmation(self, submitted: str | None = None) -> str | None:
        """The reason, once everything the dialog asks for is there; else None (and say why).
        `submitted`: the reason as it was when enter was pressed in its field (a key typed
        after enter reaches the field before the dialog hears of the enter, and must not go
        into the audit log)."""
        raise NotImplementedError

    def reason(self, submitted: str | None) -> str | None:
        """The reason field's text (as submitted, when it was), or None after saying that one
        is required."""
        field = self.query_one("#reason", Input)
        reason = (field.value if submitted is None else submitted).strip()
        if not reason:
            self._status(Text(self.REASON_REQUIRED, style="bold red"))
            self.focus_now(field)
            return None
        return reason

    def action_confirm(self, submitted: str | None = None) -> None:
        if self.writing or self.outdated:
            return
        if not self.shown_whole():
            self._status(Text("The terminal is too small to show this dialog whole: enlarge it "
                              "to confirm (nothing was written).", style="bold red"))
            self.notify("The dialog does not fit the terminal: enlarge it to confirm.",
                        severity="warning")
            return
        reason = self.confirmation(submitted)
        if reason is None:
            return
        self.writing = True
        self._status(Text("writing …", style="italic"))
        for field in self.query(Input):
            field.disabled = True
        self.app.apply_plan(self, self.plan, reason)

    def failed(self, message: str, stale: bool = False) -> None:
        """The store refused the write: show why, and let the operator correct it; or, when
        the store changed since the plan was made (`stale`), say that this plan can no longer
        be confirmed: the action must be started again to review the new one."""
        self.writing = False
        self.outdated = stale
        for field in self.query(Input):
            field.disabled = stale
            if stale:             # said where the operator types (helper-64: keys did nothing)
                field.placeholder = "(this plan is stale: escape, then start the action again)"
        for button in self.query("#confirm"):
            button.disabled = stale
        text = Text("Refused: ", style="bold red")
        text.append_text(safe(message, max_chars=600))
        if stale:
            text.append("  Press escape, then start the action again to review what it would do "
                        "now.", style="bold")
        else:
            text.append("  Correct it and confirm again, or escape.", style="bold")
            self.focus_now(self.query_one("#reason", Input))
        self._status(text)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Give the plan's scrolling body what the terminal leaves once the title, the status,
        the fields and the buttons are placed, so that on a small terminal these stay on screen
        (the body scrolls: pageup/pagedown)."""
        bodies = self.query("#plan-body")
        if not bodies or not bodies.first().parent:
            return
        body = bodies.first()
        dialog = body.parent
        if not getattr(self, "_watching_body", False):
            self._watching_body = True
            self.watch(body, "scroll_y", lambda _: self._say_more(), init=False)
        others = sum(w.outer_size.height + w.styles.margin.top + w.styles.margin.bottom
                     for w in dialog.children if w is not body and w.display)
        room = int(self.size.height * 0.9) - dialog.styles.border.spacing.height - others
        limit = max(BODY_LINES, min(room, int(self.size.height * 0.6)))
        if body.styles.max_height is None or body.styles.max_height.value != limit:
            body.styles.max_height = limit

    def _say_more(self) -> None:
        """On the dialog's lower border, under a plan's list that does not fit: how much of it is
        out of sight, and how to see it (helper-62: at 60x20 the erase dialog showed one of six
        entries, and nothing said there were more). The border: a line in the dialog would
        take a row from the list or push the fields off a small terminal."""
        for body in self.query("#plan-body"):
            below = max(0, round(body.max_scroll_y - body.scroll_y))
            above = max(0, round(body.scroll_y))
            parts = [f"{n} more line{'' if n == 1 else 's'} {where}"
                     for n, where in ((below, "below"), (above, "above")) if n]
            said = Text(f"↕ {', '.join(parts)}: pgdn/pgup", style="bold yellow") if parts else ""
            if body.parent is not None and str(body.parent.border_subtitle or "") != str(said):
                body.parent.border_subtitle = said

    def shown_whole(self) -> bool:
        """Whether the fields and buttons are all on screen, unclipped, and the plan's list
        shows at least its first lines (a table's header and a row): an operator never confirms
        what the terminal cannot show (at 40x12 the list showed its header only, and ctrl+y
        rejected an entry never on screen: helper-75)."""
        for widget in self.query("Input, #plan-buttons"):
            try:
                geometry = self.find_widget(widget)
            except NoWidget:           # laid out nowhere (clipped away)
                return False
            if geometry.region.area == 0 or not geometry.clip.contains_region(geometry.region):
                return False
        for body in self.query("#plan-body"):
            try:
                geometry = self.find_widget(body)
            except NoWidget:
                return False
            shown = geometry.clip.intersection(geometry.region).height
            if shown < min(BODY_LINES, body.virtual_size.height):
                return False
        return True

    def done(self, result) -> None:
        self.writing = False
        self.dismiss(result)

    def _status(self, text: Text) -> None:
        self.query_one("#plan-status", Static).update(text)

    def action_scroll_plan(self, step: int) -> None:
        for body in self.query("#plan-body"):
            # Now (immediate), not at the next refresh: in a burst (pgdn held down) every key
            # began from the place the first had not yet left, and ten pages moved one
            # (helper-79).
            page = body.scrollable_content_region.height
            body.scroll_to(y=max(0, min(body.max_scroll_y, body.scroll_y + step * page)),
                           animate=False, immediate=True)

    def action_cancel(self) -> None:
        if self.writing:
            self.notify("The write is running: it cannot be stopped halfway.", severity="warning")
            return
        self.dismiss(None)
