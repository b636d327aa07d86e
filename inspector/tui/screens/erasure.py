"""The Erasure screen: find a data subject (the subjects the store knows are listed, narrowed as
you type, with "did you mean" when a name matches nothing), preview what erasure would take —
each entry with its key and value, masked if secret — and what legal hold keeps, erase with a
typed confirmation, and read the certificate."""

from __future__ import annotations

import difflib
import json

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Static

from ...present.text import decode, render, safe, safe_name
from ...store.errors import InspectorError
from ...store.registry import available
from ..modals.erase import would_erase
from ..session import ListSource, plan_action
from ..spec import ScreenSpec
from ..widgets.rows import json_cell
from ..widgets.typed_input import TypedInput
from ..widgets.virtual_table import Column, VirtualTable
from . import screen
from .base import InspectorScreen
from .tables import id_column

START = ("Type a data subject and press enter, or pick one from the list (↓, then enter), to see "
         "what erasure would take. Nothing is erased before you confirm.")


def suggestions(typed: str, names: list[str], limit: int = 3) -> list[str]:
    """Known subjects `typed` may have meant: those that contain it, then close spellings."""
    low = typed.lower()
    found = [n for n in names if low and low in n.lower()]
    found += [n for n in difflib.get_close_matches(typed, names, n=limit, cutoff=0.6) if n not in found]
    return found[:limit]


@screen(ScreenSpec("erasure", "Erasure", 7, short="Erase"))
class ErasureScreen(InspectorScreen):
    BINDINGS = [Binding("e", "erase", "erase…", id="erasure.erase"),
                Binding("slash", "focus('#subject')", "subject", id="erasure.subject"),
                Binding("down", "to_list", "to the list", show=False, id="erasure.to_list")]

    _plan = None
    _asked: str | None = None            # the subject whose preview was asked for last
    _certificate: dict | None = None     # the last erasure's, named until the screen closes
    _subjects: list[dict] = []

    def body(self) -> ComposeResult:
        yield TypedInput(placeholder="data subject (e.g. user:42), then enter to preview; "
                                "escape leaves the field", id="subject")
        with Horizontal(id="main"):
            with Vertical(id="erasure-left"):
                yield VirtualTable([Column("name", "KNOWN SUBJECT", min=14, grow=True,
                                           render=lambda v: safe_name(str(v))),
                                    Column("entries", "ENTRIES", 7, render=lambda v: Text(f"{v:>7}"))],
                                   key="name", id="subjects", sortable=True, markable=False,
                                   empty="No entry names a data subject.")
                yield VirtualTable([id_column(), Column("fate", "FATE", 6),
                                    Column("entity", "ENTITY", min=8, measure=True, drop=2),
                                    Column("attribute", "ATTRIBUTE", min=9, measure=True),
                                    Column("value", "VALUE", render=json_cell, min=10, grow=True),
                                    Column("kind", "KIND", 11, drop=3),
                                    Column("status", "STATUS", 11, drop=1)],
                                   key="memory_id", id="preview", id_field="memory_id",
                                   markable=False,     # e erases the subject: every row
                                   choosable=False,    # nothing to open: the rows are whole
                                   empty="Nothing to preview: type a subject and press enter.")
            with VerticalScroll(id="certificate-pane"):
                yield Static(Text(START, style="dim"), id="certificate")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#preview", VirtualTable).display = False

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        # Back from the erase dialog (cancelled, refused) with a preview shown: the preview
        # has the focus, so the next e opens the dialog again instead of typing into the
        # subject field (which wiped the preview); else the subject field.
        if self._plan is not None:
            self.query_one("#preview", VirtualTable).focus()
        else:
            self.query_one("#subject", Input).focus()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "erase":
            if "erase" not in {a.name for a in available(self.app.session.read_only)}:
                return False
            return None if self.app.pending_write or self._plan is None else True
        return super().check_action(action, parameters)

    def empty_field_key(self, field, event) -> str | None:
        """A key typed into the empty subject field that no known subject begins with: a
        screen's number leaves the field for that screen ("7", then "1": back to Beliefs, not
        "1" typed as a subject), "/" (this field's own key) is dropped. A subject the store
        does not hold has nothing to erase; one that begins so is still typed."""
        key = event.character
        if field.id != "subject" or not (key.isdigit() or key == "/"):
            return None
        if any(s["name"].startswith(key) for s in self._subjects):
            return None
        return "drop" if key == "/" else "leave"

    def action_to_list(self) -> None:
        """↓ in the subject field: down into the list of subjects (or the preview), now, not
        after a refresh: the keys typed after it go to the list (TypedInput)."""
        self.set_focus(self.main_table())

    # -- subjects ---------------------------------------------------------------------------

    def refresh_data(self) -> None:
        self._load_subjects()
        result = self.app.session.last_result
        certificate = getattr(result, "certificate", None)
        if certificate and self._plan is not None and certificate is not self._certificate \
                and result.request.subject == self._plan.request.subject:
            # The erasure of the subject previewed, just written. Only that one: an erasure
            # by id made on another screen (e in Beliefs) was shown here as "Erased." beside
            # the subject previewed, which nothing had erased.
            self._show_certificate(certificate)
        elif self._plan is not None and self._plan.request.subject is not None:
            # The store changed under the preview (another process wrote about the subject):
            # plan it again, so the preview is what e would erase.
            self._plan_preview(self._plan.request.subject)

    @work(thread=True, exclusive=True, group="subjects")
    def _load_subjects(self) -> None:
        self._subjects = self.app.session.subjects()
        self.app.call_from_thread(self._list_subjects, self.query_one("#subject", Input).value)

    def _list_subjects(self, typed: str, only: list[str] | None = None) -> None:
        low = typed.strip().lower()
        rows = [s for s in self._subjects if low in s["name"].lower()] if low else self._subjects
        if only:
            rows = [s for s in rows if s["name"] in only]
        table = self.query_one("#subjects", VirtualTable)
        table.empty = ("No known subject contains that text; enter tries it as typed." if low
                       else "No entry names a data subject.")
        table.load(ListSource(rows), keep_cursor=False)

    @on(Input.Changed, "#subject")
    def _typed(self, event: Input.Changed) -> None:
        if event.value != self._asked:
            self._asked = None
            self._show_list()
            self._list_subjects(event.value)

    @on(VirtualTable.Chosen, "#subjects")
    def _picked(self, event: VirtualTable.Chosen) -> None:
        event.stop()
        if event.row is not None:
            # The field shows the name as the list draws it, never raw: an Input draws its text
            # as it is, and a subject holding ESC]0;… set the terminal's title, ESC]52;… its
            # clipboard (helper-74). Enter on that text previews the subject it stands for.
            name = event.row["name"]
            shown = render(name, one_line=True, edges=True)
            self._asked = shown
            self.query_one("#subject", Input).value = shown
            self._plan_preview(name)

    def _show_list(self) -> None:
        self._plan = None
        self.query_one("#preview", VirtualTable).display = False
        self.query_one("#subjects", VirtualTable).display = True
        self._show_text(self._start())
        self.refresh_bindings()

    def _start(self) -> Text:
        """What the pane says before a preview: how to start, and the last certificate (the
        data owner still needs its id once they type the next subject)."""
        text = Text(START, style="dim")
        if self._certificate is not None:
            cid = self._certificate["id"]
            text.append(f"\n\nLast erasure: certificate {cid}, written to certificates/{cid}.json.",
                        style="bold")
        return text

    # -- the preview ------------------------------------------------------------------------

    @on(Input.Submitted, "#subject")
    def _preview(self, event: Input.Submitted) -> None:
        if event.value.strip() and self.app.session.store is not None:
            self._asked = event.value
            self._plan_preview(self._subject_of(event.value))

    def _subject_of(self, typed: str) -> str:
        """The subject a submitted field names: a known subject whose drawn form (escapes and
        all) it is, or the text as typed."""
        shown = typed.strip()
        if "\\" not in shown:
            return shown
        known = {s["name"] for s in self._subjects}
        meant = decode(typed, one_line=True)
        return meant if shown not in known and meant in known else shown

    @work(thread=True, exclusive=True, group="erase-preview")
    def _plan_preview(self, subject: str) -> None:
        if self.app.session.scope is not None:
            # A scoped view sees part of what an erasure takes (it works on the whole store):
            # no preview that the erasure would then contradict.
            self._plan = None
            self.app.call_from_thread(self._nothing, subject, (
                "erasure works on the whole store, and this view is scoped: open the store "
                "without --scope to preview and erase this subject; nothing previewed"))
            return
        try:
            plan = plan_action(self.app.session, "erase", [], subject)
        except InspectorError as error:
            self._plan = None
            self.app.call_from_thread(self._nothing, subject, str(error))
            return
        self._plan = plan
        rows = self.app.session.erasure_rows(plan)
        summary = Text(f"{would_erase(plan)}\n", style="bold")
        if self.app.session.read_only:
            summary.append("Nothing is erased: the store is open read-only (open it without "
                           "--read-only to erase); escape, then / to search another subject.",
                           style="dim")
        else:
            summary.append("Nothing is erased yet. Press e to erase (you will type the subject "
                           "to confirm); escape, then / to search another subject.", style="dim")
        self.app.call_from_thread(self._show_preview, summary, rows)

    def _show_preview(self, summary: Text, rows: list[dict]) -> None:
        self._show_text(summary)
        preview = self.query_one("#preview", VirtualTable)
        self.query_one("#subjects", VirtualTable).display = False
        preview.display = True
        preview.load(ListSource(rows), keep_cursor=False)
        preview.focus()
        self.refresh_bindings()

    def _nothing(self, subject: str, error: str) -> None:
        """Nothing to erase: say so, and which known subjects the operator may have meant."""
        text = Text()
        text.append_text(safe(error, style="yellow"))
        names = [s["name"] for s in self._subjects]
        meant = suggestions(subject, names)
        if meant:
            text.append("\n\nDid you mean ", style="bold")
            for n, name in enumerate(meant):
                text.append(", " if n else "")
                text.append_text(safe_name(name, style="bold"))
            text.append("? Matching is exact: pick one from the list (↓, then enter), or type it.",
                        style="dim")
        self._show_list()
        self._show_text(text)
        # The list holds what the hint names (it was filtered by the text typed, which no
        # known subject contains: "did you mean … pick one from the list" over an empty list,
        # helper-67), else every known subject.
        self._list_subjects("", only=meant)

    def _show_text(self, text: Text) -> None:
        self.query_one("#certificate", Static).update(text)

    def action_erase(self) -> None:
        if self._plan is not None:
            self.app.start_action("erase", [], set, subject=self._plan.request.subject)

    def _show_certificate(self, certificate: dict) -> None:
        self._certificate = certificate
        text = Text(f"Erased. Certificate {certificate['id']}\n", style="bold green")
        text.append(f"written to certificates/{certificate['id']}.json\n\n", style="dim")
        text.append_text(safe(json.dumps(certificate, indent=2)))
        self._show_text(text)
        self._plan = None
        self.query_one("#preview", VirtualTable).load(ListSource([]))
        self.refresh_bindings()

    def main_table(self) -> VirtualTable | None:
        table = self.query_one("#preview", VirtualTable)
        return table if table.display else self.query_one("#subjects", VirtualTable)
