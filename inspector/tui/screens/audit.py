"""The Audit screen: the log, event by event, and the chain's status (verify runs in a child
process so that hashing never stalls the screen); enter opens an event's before and after."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from ...present.text import safe
from ..modals.event import EventModal
from ..spec import ScreenSpec, Status
from ..widgets.header import chain_text
from ..widgets.virtual_table import Column, VirtualTable
from . import screen
from .base import InspectorScreen
from .tables import id_column, time_column


@screen(ScreenSpec("audit", "Audit", 6, table="tui_log", rows=("tui_log_view",),
                   scoped_rows=("tui_log_rows",), count=True,
                   empty="The log is empty: every write, hold and curation action appears here, "
                         "chained by hash.",
                   short="Audit"))
class AuditScreen(InspectorScreen):
    BINDINGS = [Binding("v", "verify", "verify chain", id="audit.verify"),
                Binding("b", "revert_batch", "revert batch", id="audit.revert_batch")]

    def body(self) -> ComposeResult:
        yield Static(id="audit-status", classes="hint")
        yield VirtualTable([
            Column("seq", "SEQ", keep=True, render=lambda v: Text(str(v))),
            time_column("at", "AT"),
            Column("op", "OP", 10, render=lambda v: Text(v, style="bold")),
            # Narrow, the hash goes first and the reason last; whether a body was erased
            # stays longer than the status and the actor (a data owner's question; helper-75)
            Column("actor", "ACTOR", min=10, measure=True, drop=3), id_column("memory_id", "ENTRY"),
            Column("status", "STATUS", 11, drop=4), id_column("batch", "BATCH"),
            Column("reason", "REASON", min=12, grow=True, drop=1),
            Column("redacted", "BODY", 7, render=lambda v: Text("erased" if v else "", style="red"),
                   drop=2),
            Column("hash", "HASH", 14, render=lambda v: Text((v or "unchained")[:12] + "…", style="dim"),
                   drop=5),
        ], key="seq", id="log", sortable=True, empty=self.SPEC.empty, id_field="memory_id")

    def on_mount(self) -> None:
        super().on_mount()
        self.watch(self.app, "status", self._show_chain)
        self.query_one(VirtualTable).focus()

    def _show_chain(self, status: Status) -> None:
        line = chain_text(status.chain, status.verifying, status.events, status.log_problem)
        chain = status.chain
        if chain:
            # The head the check read up to (the header's head may be newer: "+N since").
            head = chain["head"]
            # "verified" only of a chain that verified (helper-64: "chain ✗ at seq 1   verified
            # head 24:…" read as if the head were vouched for)
            said = "verified head" if chain.get("ok") else "read to head"
            if head is None:
                line.append("   verified: the log is empty", style="dim")
            else:    # seq:first 16 hex of its hash, as the header cuts it: the line keeps its keys
                seq, _, digest = str(head).partition(":")
                line.append(f"   {said} {seq}:{digest[:16]}{'…' if len(digest) > 16 else ''}",
                            style="dim")
            if chain.get("problem"):
                line.append("   ")
                line.append_text(safe(chain["problem"], one_line=True, max_chars=120))
            erased = chain["redacted"]
            line.append(f"   {erased} bod{'y' if erased == 1 else 'ies'} erased · "
                        f"{chain['unchained']} unchained", style="dim")
        line.append("   v verify · enter: the event's before and after · end: newest", style="dim")
        self.query_one("#audit-status", Static).update(line, layout=False)

    def refresh_data(self) -> None:
        self.query_one(VirtualTable).load(self.source(), keep_cursor=True)

    def action_verify(self) -> None:
        self.app.verify_chain()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "revert_batch":
            if self.app.session.read_only:
                return False
            if self.app.pending_write or self.app.session.store is None:
                return None
        return super().check_action(action, parameters)

    def action_revert_batch(self) -> None:
        """b: the plan of reverting the batch of the marked event, else of the event under the
        cursor (any batch the log shows; the plan refuses what cannot be reverted and says
        why). Events of more than one batch marked: refused, naming them (one batch a plan)."""
        table = self.query_one(VirtualTable)
        marked = sorted(table.marked_rows(), key=lambda r: r["seq"])
        if marked:
            batches = list(dict.fromkeys(r.get("batch") for r in marked))
            if len(batches) > 1 or batches[0] is None:
                seqs = ", ".join(str(r["seq"]) for r in marked[:8]) + (" …" if len(marked) > 8 else "")
                self.notify(f"The marked events (seq {seqs}) are not all of one batch: b reverts "
                            "one batch. Unmark all but one batch's events (space), then b.",
                            severity="warning", timeout=8, markup=False)
                return
            row = marked[0]
        else:
            row = table.row_at(table.cursor_row)
        if row is None:
            self.notify("No event selected: move the cursor to an event of the batch.", timeout=4)
        elif not row.get("batch"):
            self.notify(f"Event {row['seq']} belongs to no batch: only curation actions, "
                        "which write batches, can be reverted.", severity="warning", timeout=6)
        else:
            self.app.start_revert(row["batch"])

    @on(VirtualTable.Chosen)
    def _chosen(self, event: VirtualTable.Chosen) -> None:
        if event.row is not None:
            self._open_event(event.row["seq"])

    @work(thread=True, exclusive=True, group="event")
    def _open_event(self, seq: int) -> None:
        after, before = self.app.session.event_pair(seq)
        if after is not None:
            self.app.call_from_thread(self.app.push_screen, EventModal(after, before))
