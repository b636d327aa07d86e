"""The Audit screen: the log, event by event, and the chain's status (verify runs in a child
process so that hashing never stalls the screen)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from ...present.text import safe
from ..widgets.header import chain_text
from ..widgets.virtual_table import Column, VirtualTable
from ..spec import ScreenSpec, Status
from . import screen
from .base import InspectorScreen


@screen(ScreenSpec("audit", "Audit", 6, table="tui_log", rows=("tui_log_view",),
                   scoped_rows=("tui_log_rows",)))
class AuditScreen(InspectorScreen):
    BINDINGS = [Binding("v", "verify", "verify chain", id="audit.verify")]

    def body(self) -> ComposeResult:
        yield Static(id="audit-status", classes="hint")
        yield VirtualTable([
            Column("seq", "SEQ", 9, render=lambda v: Text(str(v))),
            Column("at", "AT", 20, render=lambda v: Text(v.strftime("%Y-%m-%d %H:%M:%S") if v else "")),
            Column("op", "OP", 10, render=lambda v: Text(v, style="bold")),
            Column("actor", "ACTOR", 20), Column("memory_id", "ENTRY", 12),
            Column("status", "STATUS", 11), Column("batch", "BATCH", 18),
            Column("reason", "REASON", None),
            Column("redacted", "BODY", 7, render=lambda v: Text("erased" if v else "", style="red")),
            Column("hash", "HASH", 14, render=lambda v: Text((v or "unchained")[:12] + "…", style="dim")),
        ], key="seq", id="log")

    def on_mount(self) -> None:
        super().on_mount()
        self.watch(self.app, "status", self._show_chain)
        self.query_one(VirtualTable).focus()

    def _show_chain(self, status: Status) -> None:
        line = chain_text(status.chain, status.verifying, status.events)
        chain = status.chain
        if chain:
            line.append(f"   head {chain['head']}", style="dim")
            if chain.get("problem"):
                line.append("   ")
                line.append_text(safe(chain["problem"], one_line=True, max_chars=120))
            line.append(f"   {chain['redacted']} bodies erased · {chain['unchained']} unchained", style="dim")
        line.append("   v verify · end: newest", style="dim")
        self.query_one("#audit-status", Static).update(line, layout=False)

    def refresh_data(self) -> None:
        self.query_one(VirtualTable).load(self.source(), keep_cursor=True)

    def action_verify(self) -> None:
        self.app.verify_chain()
