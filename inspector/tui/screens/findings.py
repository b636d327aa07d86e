"""The Findings screen: `scan` run in a worker with progress, its findings in a table, the
detail of the entry each one names."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static
from textual.worker import get_current_worker

from ...store import scan
from ..session import ListSource
from ...present.text import safe
from ..widgets.detail import DetailPane
from ..widgets.virtual_table import Column, VirtualTable
from ...present.glyphs import SEVERITY_STYLE
from ..spec import ScreenSpec
from . import screen
from .tables import EntryTableScreen


@screen(ScreenSpec(
    "findings", "Findings", 5, count=True, actions=("quarantine", "retract", "expire", "erase"),
    hint="Deterministic checks of the store: s scan again · ctrl+c stop a running scan"))
class FindingsScreen(EntryTableScreen):
    TABLE_ID = "findings"
    ROW_KEY = "row_key"
    BINDINGS = [Binding("s", "scan", "scan", id="findings.scan"),
                Binding("ctrl+c", "stop", "stop", show=False, id="findings.stop")]

    def columns(self) -> list[Column]:
        return [Column("severity", "SEV", 6, render=lambda v: Text(v, style=SEVERITY_STYLE[v])),
                Column("rule", "RULE", 26), Column("memory_id", "ID", 10),
                Column("message", "MESSAGE", None)]

    def body(self) -> ComposeResult:
        with Horizontal(classes="hint"):
            yield Static(Text(self.SPEC.hint, style="dim"), id="scan-status")
            yield ProgressBar(total=1.0, show_eta=False, id="scan-progress")
        yield Static(id="finding-message", classes="hint")
        with Horizontal(id="main"):
            yield VirtualTable(self.columns(), key=self.ROW_KEY, id=self.TABLE_ID)
            yield DetailPane(id="detail")

    @on(VirtualTable.Highlighted)
    def _show_message(self, event: VirtualTable.Highlighted) -> None:
        if event.row is not None:
            line = Text(f"{event.row['rule']}: ", style=SEVERITY_STYLE[event.row["severity"]])
            line.append_text(safe(event.row["message"], one_line=True))
            self.query_one("#finding-message", Static).update(line, layout=False)

    def refresh_data(self) -> None:
        if "findings" not in self.app.status.counts:
            self.action_scan()

    def action_scan(self) -> None:
        if self.app.session.store is not None:
            self._scan()

    def action_stop(self) -> None:
        for worker in self.workers:
            if worker.group == "scan":
                worker.cancel()

    @work(thread=True, exclusive=True, group="scan")
    def _scan(self) -> None:
        worker = get_current_worker()
        bar = self.query_one("#scan-progress", ProgressBar)
        status = self.query_one("#scan-status", Static)
        self.app.call_from_thread(status.update, Text("scanning …", style="italic"))

        def progress(fraction: float, label: str) -> None:
            self.app.call_from_thread(bar.update, progress=fraction)
        try:
            found = scan.scan(self.app.session.store, progress, lambda: worker.is_cancelled)
        except scan.Cancelled:
            self.app.call_from_thread(status.update, Text("scan stopped", style="yellow"))
            return
        rows = [{**f.as_json(), "row_key": n} for n, f in enumerate(found)]
        counts = {s: sum(1 for f in found if f.severity == s) for s in ("high", "medium", "low")}
        summary = Text(f"{len(found)} findings: ")
        for severity, n in counts.items():
            summary.append(f"{n} {severity}  ", style=SEVERITY_STYLE[severity])
        self.app.call_from_thread(bar.update, progress=1.0)
        self.app.call_from_thread(status.update, summary)
        self.app.call_from_thread(self.query_one(VirtualTable).load, ListSource(rows), keep_cursor=True)
        self.app.call_from_thread(self.app.set_count, "findings", len(found))
