"""The Overview screen (DESIGN §9, since v1.1): the store at a glance — events over time by op
and by source class, the held queue, findings by severity, quarantines by source. Choosing an
item narrows the screen that lists it: an op narrows Audit to that op, a source class narrows
Beliefs to beliefs from that class, the held queue opens Review, a severity narrows Findings,
a source narrows Quarantine."""

from __future__ import annotations

from datetime import datetime, timezone

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.widgets import Static
from textual.worker import get_current_worker

from ...present.text import render
from ...store import scan
from ..spec import ScreenSpec
from ..widgets.charts import Item, OverviewChart
from . import screen
from .base import InspectorScreen

# What choosing an item opens: (screen, column it narrows, what the note calls the column).
NARROWS = {"op": ("audit", "op", "op"), "class": ("beliefs", "source_class", "source class"),
           "held": ("review", None, ""), "severity": ("findings", "severity", "severity"),
           "quarantine": ("quarantine", "source", "source")}


def now() -> datetime:
    """The clock the held queue's age is measured by (tests set it)."""
    return datetime.now(timezone.utc)


@screen(ScreenSpec(
    "overview", "Overview", 0,
    hint="The store over time: ↑↓ choose a row, enter narrows the screen that lists it "
         "(esc there shows every row again)",
    short="Ovw"))
class OverviewScreen(InspectorScreen):
    overview = None
    scanning = False

    def body(self) -> ComposeResult:
        yield Static(Text(self.SPEC.hint, style="dim"), classes="hint")
        yield OverviewChart(id="chart")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(OverviewChart).focus()

    def refresh_data(self) -> None:
        self._read()

    @work(thread=True, exclusive=True, group="overview")
    def _read(self) -> None:
        """The numbers at once; then findings, from the last scan (or a scan started here)."""
        session = self.app.session
        overview = session.overview()
        chart = self.query_one(OverviewChart)
        found = session.found
        if found is not None:
            overview.findings = self._by_severity(found)
            overview.findings_behind = session.findings_behind()
        self.overview = overview
        self.app.call_from_thread(chart.show, overview, now(), found is None)
        if found is None and not self.scanning:
            self.scanning = True
            self.app.call_from_thread(self._scan)

    @work(thread=True, exclusive=True, group="overview-scan")
    def _scan(self) -> None:
        worker = get_current_worker()
        try:
            found = self.app.session.findings(cancelled=lambda: worker.is_cancelled)
        except scan.Cancelled:
            return
        finally:
            self.scanning = False
        overview = self.overview
        if overview is None or worker.is_cancelled:
            return
        overview.findings = self._by_severity(found)
        overview.findings_behind = self.app.session.findings_behind()
        chart = self.query_one(OverviewChart)
        self.app.call_from_thread(chart.show, overview, now())

    def _by_severity(self, found: list[dict]) -> dict[str, int]:
        counts = {"high": 0, "medium": 0, "low": 0}
        for finding in self.app.session.live_findings(found):
            counts[finding["severity"]] += 1
        return counts

    def on_unmount(self) -> None:
        for worker in self.workers:
            worker.cancel()

    @on(OverviewChart.Chosen)
    def _chosen(self, event: OverviewChart.Chosen) -> None:
        event.stop()
        self.narrow(event.item)

    def narrow(self, item: Item) -> None:
        """Open the screen that lists `item`, narrowed to it."""
        mode, field, called = NARROWS[item.kind]
        self.app.switch_mode(mode)
        if field is None:
            return
        target = self.app.screen
        if item.value is None:
            # Every row, as the notice says: a narrowing chosen before stayed ("(none)" after
            # "web" showed 0 of 6 rows under "every row is shown").
            target.call_after_refresh(target.narrow_to, field, None)
            self.notify(f"{item.label}: nothing to narrow to; every row is shown.", timeout=4)
            return
        target.call_after_refresh(target.narrow_to, field, item.value)
        self.notify(f"{target.SPEC.label}: only rows whose {called} is "
                    f"{render(item.value, one_line=True)} · escape on the table shows every row",
                    timeout=6, markup=False)
