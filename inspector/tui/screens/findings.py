"""The Findings screen: `scan` run in a worker with progress, its findings in a table (only those
whose entry is still active or held, with its status), the detail of the entry each one names."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static
from textual.worker import get_current_worker

from ...present.glyphs import SEVERITY_STYLE
from ...present.text import safe
from ...store import scan
from ..overview import stale_words
from ..session import ListSource
from ..spec import ScreenSpec
from ..widgets.virtual_table import Column, VirtualTable
from . import screen
from .tables import EntryTableScreen, id_column


@screen(ScreenSpec(
    "findings", "Findings", 5, count=True, actions=("quarantine", "retract", "expire", "erase"),
    hint="Deterministic checks of the store: s scan again · ctrl+c stop a running scan",
    empty="No findings about active or held entries. The scan looks for instructions from "
          "untrusted sources, credentials, scope leaks, echoes, cycles and personal data "
          "without a subject; s scans again.",
    short="Find"))
class FindingsScreen(EntryTableScreen):
    TABLE_ID = "findings"
    ROW_KEY = "row_key"
    BINDINGS = [Binding("s", "scan", "scan", id="findings.scan"),
                Binding("ctrl+c", "stop", "stop", show=False, id="findings.stop")]
    found: list[dict] | None = None      # the last scan's findings, every one
    scans_started = 0                    # a stopped scan says so only if no other began since
    rows: list[dict] = []                # those whose entry is still active or held

    def columns(self) -> list[Column]:
        return [Column("severity", "SEV", 6, render=lambda v: Text(v, style=SEVERITY_STYLE[v])),
                Column("rule", "RULE", 24, drop=2), id_column(),
                Column("status", "STATUS", 11, drop=1),
                Column("message", "MESSAGE", min=16, grow=True)]

    def body(self) -> ComposeResult:
        with Horizontal(classes="hint"):
            yield Static(Text(self.SPEC.hint, style="dim"), id="scan-status")
            yield ProgressBar(total=1.0, show_eta=False, id="scan-progress")
        yield Static(id="finding-message", classes="hint")
        yield from self.main()

    @on(VirtualTable.Highlighted)
    def _show_message(self, event: VirtualTable.Highlighted) -> None:
        line = Text()
        if event.row is not None:
            line = Text(f"{event.row['rule']}: ", style=SEVERITY_STYLE[event.row["severity"]])
            line.append_text(safe(event.row["message"], one_line=True))
        self.query_one("#finding-message", Static).update(line, layout=False)

    def refresh_data(self) -> None:
        if self.found is None:
            if self.app.session.store is not None:
                self._scan(rescan=False)       # the Overview's scan, if it ran one
        else:
            self._restatus()

    def source(self):
        table = self.main_table()
        return ListSource(self.rows, sort=table.sort, narrow=table.narrow)

    def frequency_source(self, table):
        return ListSource(self.rows)

    def action_scan(self) -> None:
        if self.app.session.store is not None:
            self._scan()

    def action_stop(self) -> None:
        for worker in self.workers:
            if worker.group == "scan":
                worker.cancel()

    @work(thread=True, exclusive=True, group="scan")
    def _scan(self, rescan: bool = True) -> None:
        worker = get_current_worker()
        bar = self.query_one("#scan-progress", ProgressBar)
        status = self.query_one("#scan-status", Static)
        self.scans_started += 1
        mine = self.scans_started
        self.app.call_from_thread(status.update, Text("scanning …", style="italic"))
        self.app.call_from_thread(setattr, bar, "display", True)

        def progress(fraction: float, label: str) -> None:
            self.app.call_from_thread(bar.update, progress=fraction)
        try:
            self.found = self.app.session.findings(rescan, progress, lambda: worker.is_cancelled)
        except scan.Cancelled:
            # Stopped by ctrl+c, or by a scan started since (the workers are exclusive): only
            # the latest scan's stop is shown, never over a newer scan's findings.
            if mine == self.scans_started:
                self.app.call_from_thread(status.update, Text("scan stopped", style="yellow"))
            return
        # Done: the bar goes, and the summary has the whole line (a finished bar beside it cut
        # off "… not shown)", the words that say why fewer findings show: helper-59).
        self.app.call_from_thread(setattr, bar, "display", False)
        self._show_live()

    @work(thread=True, exclusive=True, group="scan")
    def _restatus(self) -> None:
        self._show_live()

    def _show_live(self) -> None:
        """Worker thread: keep the findings still to act on (session.still_to_act_on: an entry
        quarantined, rejected or erased since the scan is no longer one, but for personal
        data without a subject, which only erasure takes)."""
        self.rows = self.app.session.live_findings(self.found)
        gone = len(self.found) - len(self.rows)
        n = len(self.rows)
        summary = Text(f"{n} finding{'' if n == 1 else 's'}: ")
        for severity in ("high", "medium", "low"):
            n = sum(1 for f in self.rows if f["severity"] == severity)
            summary.append(f"{n} {severity}  ", style=SEVERITY_STYLE[severity])
        behind = self.app.session.findings_behind()
        if behind is not None:        # first: what the operator must not miss
            summary.append(stale_words(behind) + " · s scans again  ", style="bold yellow")
        if gone:
            summary.append(f"({gone} about entries no longer active or held, not shown)", style="dim")
        self.app.call_from_thread(self.query_one("#scan-status", Static).update, summary)
        self.app.call_from_thread(self.query_one(VirtualTable).load, self.source(), keep_cursor=True)
        self.app.call_from_thread(self.app.set_count, "findings", len(self.rows))
        self.app.call_from_thread(self.app.set_stale, "findings", behind is not None)
