"""The Erasure screen: search a data subject, preview what erasure takes (and what legal hold
keeps), erase with a typed confirmation, and read the certificate."""

from __future__ import annotations

import json

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Static

from ...store.errors import InspectorError
from ...store.registry import available
from ..session import ListSource, plan_action
from ...present.text import safe
from ..widgets.virtual_table import Column, VirtualTable
from ..spec import ScreenSpec
from . import screen
from .base import InspectorScreen


@screen(ScreenSpec("erasure", "Erasure", 7))
class ErasureScreen(InspectorScreen):
    BINDINGS = [Binding("e", "erase", "erase…", id="erasure.erase"),
                Binding("slash", "focus('#subject')", "subject", id="erasure.subject")]

    def body(self) -> ComposeResult:
        yield Input(placeholder="data subject (e.g. user:42), then enter to preview", id="subject")
        with Horizontal(id="main"):
            yield VirtualTable([Column("memory_id", "ID", 12), Column("fate", "FATE", 9),
                                Column("kind", "KIND", 12), Column("status", "STATUS", 12)],
                               key="memory_id", id="preview")
            with VerticalScroll(id="certificate-pane"):
                yield Static(Text("Type a subject and press enter to see what erasure would take.",
                                  style="dim"), id="certificate")

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "erase":
            if "erase" not in {a.name for a in available(self.app.session.read_only)}:
                return False
            return None if self.app.pending_write or self._plan is None else True
        return super().check_action(action, parameters)

    _plan = None

    @on(Input.Submitted, "#subject")
    def _preview(self, event: Input.Submitted) -> None:
        if event.value.strip() and self.app.session.store is not None:
            self._plan_preview(event.value.strip())

    @work(thread=True, exclusive=True, group="erase-preview")
    def _plan_preview(self, subject: str) -> None:
        try:
            plan = plan_action(self.app.session, "erase", [], subject)
        except InspectorError as error:
            self._plan = None
            self.app.call_from_thread(self._show_text, Text(str(error), style="yellow"))
            self.app.call_from_thread(self.query_one(VirtualTable).load, ListSource([]))
            return
        self._plan = plan
        rows = self.app.session.erasure_rows(plan)
        summary = Text(f"{len(plan.erased)} entries would be erased, {len(plan.redacted_seqs)} event "
                       f"bodies replaced, {len(plan.retained)} retained under legal hold.\n", style="bold")
        summary.append("press e to erase (you will type the subject to confirm)", style="dim")
        self.app.call_from_thread(self._show_text, summary)
        self.app.call_from_thread(self.query_one(VirtualTable).load, ListSource(rows))
        self.app.call_from_thread(self.query_one(VirtualTable).focus)
        self.app.call_from_thread(self.refresh_bindings)

    def _show_text(self, text: Text) -> None:
        self.query_one("#certificate", Static).update(text)

    def action_erase(self) -> None:
        if self._plan is not None:
            self.app.start_action("erase", [], set, subject=self._plan.request.subject)

    def refresh_data(self) -> None:
        certificate = getattr(self.app.session.last_result, "certificate", None)
        if certificate:
            text = Text(f"certificate {certificate['id']}\n", style="bold green")
            text.append(f"written to certificates/{certificate['id']}.json\n\n", style="dim")
            text.append_text(safe(json.dumps(certificate, indent=2)))
            self._show_text(text)
            self._plan = None
            self.query_one(VirtualTable).load(ListSource([]))
