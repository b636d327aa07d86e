"""The incident report (`report`): one self-contained file, HTML or Markdown, that says what
happened in a window — the store and its chain verdict, belief changes with their causes,
the held queue, findings, actions, certificates and a lineage picture per changed belief —
with secrets masked. Written under <store>/reports/ by default, where erasure finds it.

It reads the core and the shared presentation module; it never imports a front end."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..store import reports
from ..store.errors import BadInput
from ..store.load import Store
from ..store.model import format_time, now_utc
from .html import render_html
from .incident import Incident, gather
from .markdown import render_markdown

FORMATS = {"html": ("html", render_html), "md": ("md", render_markdown)}


@dataclass(frozen=True)
class Written:
    path: Path
    format: str
    window: dict
    in_reach: bool        # under <store>/reports/, where erasure looks

    def as_json(self) -> dict:
        return {"path": str(self.path), "format": self.format, "window": self.window}


def render(incident: Incident, fmt: str) -> str:
    return _format(fmt)[1](incident)


def _format(fmt: str):
    if fmt not in FORMATS:
        raise BadInput(f"--format must be html or md, not {fmt!r}")
    return FORMATS[fmt]


def write(store: Store, since: datetime | None = None, until: datetime | None = None,
          fmt: str = "html", out: Path | None = None) -> Written:
    """Gather, render and write the report; the file is new (never replaces one), 0600, and
    written only if the log is still the one gathered from (else Stale, nothing written)."""
    extension, renderer = _format(fmt)
    now = now_utc()
    until = until or now
    if since is not None and since > until:
        raise BadInput(f"--since {format_time(since)} is after --until {format_time(until)}; "
                       "give the earlier time as --since")
    incident = gather(store, since, until, now)
    data = renderer(incident).encode("utf-8")
    with reports.log_unchanged(store.paths, store.mark()):      # an erasure meanwhile: refused
        if out is None:
            path = reports.write_in_store(store.paths, reports.report_name(until, extension), data)
        elif out.parent.resolve() == reports.reports_dir(store.paths).resolve():
            path = reports.write_in_store(store.paths, out.name, data)
        else:
            path = reports.write_elsewhere(out, data)
    return Written(path, fmt, incident.window, reports.in_reach(store.paths, path))
