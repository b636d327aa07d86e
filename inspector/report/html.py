"""The incident report as one self-contained HTML page: inline CSS and inline SVG, no script,
no link or image from anywhere (a Content-Security-Policy in the page says so to the browser
too), so it opens offline in any browser and a hostile value cannot make it call out. Every
untrusted string is shown through the sanitizer and then HTML-escaped."""

from __future__ import annotations

from html import escape

from ..present.text import as_str, render
from ..store.diff import TRUNCATED_CAUSES
from ..store.model import format_time
from ..store.reports import manifest_line
from . import svg
from .incident import Incident

VALUE_CHARS = 400
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; color: #1d1d1f; background: #fff;
       margin: 2em auto; max-width: 1200px; padding: 0 1.5em; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1em; margin: 1.5em 0 .4em; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }
dt { color: #555; } dd { margin: 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: #f4f4f6; }
code, .id { font-family: ui-monospace, monospace; word-break: break-all; }
.ok { color: #2f7d32; font-weight: bold; } .bad { color: #b00020; font-weight: bold; }
.muted { color: #666; } .high { color: #b00020; } .medium { color: #b8860b; }
.low { color: #555; } ul.causes { margin: 0; padding-left: 1.1em; }
svg.lineage { display: block; margin: .5em 0 1.5em; max-width: 100%; height: auto; }
svg.lineage text { font: 12px ui-monospace, monospace; fill: #1d1d1f; }
svg.lineage text.meta { fill: #555; }
"""


def h(value, limit: int | None = None) -> str:
    """Untrusted text as HTML: escapes visible (the sanitizer), cut at `limit`, then escaped."""
    shown = render(as_str(value), one_line=True)
    if limit is not None and len(shown) > limit:
        shown = f"{shown[:limit]}… ({len(shown)} chars)"
    return escape(shown, quote=True)


def ident(value) -> str:
    return f'<code class="id">{h(value)}</code>' if value else '<span class="muted">—</span>'


def render_html(incident: Incident) -> str:
    parts = ["<!DOCTYPE html>", manifest_line(incident.mentions), '<html lang="en"><head>',
             '<meta charset="utf-8">',
             f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
             '<meta name="referrer" content="no-referrer">',
             f"<title>Incident report: {h(incident.store)}</title>",
             f"<style>{STYLE}</style></head><body>"]
    for section in (_summary, _changes, _held, _findings, _actions, _certificates, _pictures):
        parts.append(section(incident))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _summary(inc: Incident) -> str:
    v = inc.verdict
    verdict = ('<span class="ok">chain verified</span>' if v["ok"] else
               f'<span class="bad">chain broken at seq {h(v["first_bad_seq"])}</span>: {h(v["problem"])}')
    since = h(format_time(inc.since)) if inc.since else "the first event"
    rows = [("store", ident(inc.store)), ("head", ident(inc.head)), ("audit --verify", verdict),
            ("window", f"{since} → {h(format_time(inc.until))}"),
            ("written", h(format_time(inc.generated))),
            ("beliefs", h(f"{inc.rule}; store-wide, each time sets the knowledge and valid time"))]
    items = "".join(f"<dt>{k}</dt><dd>{val}</dd>" for k, val in rows)
    return f"<h1>Incident report</h1>\n<dl>{items}</dl>"


def _side(side: dict | None) -> str:
    if side is None:
        return '<span class="muted">(no belief)</span>'
    return f"{ident(side['memory_id'])} {h(side['value'], VALUE_CHARS)}"


def _cause(c: dict) -> str:
    reason = f" — {h(c['reason'])}" if c["reason"] else ""
    batch = f" batch {ident(c['batch'])}" if c["batch"] else ""
    return (f"<li>seq {c['seq']} {h(c['at'])} <b>{h(c['op'])}</b> {ident(c['memory_id'])} "
            f"by {h(c['actor'])}{batch}{reason}</li>")


def _changes(inc: Incident) -> str:
    head = f"<h2>Belief changes ({len(inc.changes) + inc.more_changes})</h2>"
    if not inc.changes:
        return head + '<p class="muted">No belief changed in the window.</p>'
    rows = []
    for c in inc.changes:
        markers = h(", ".join(c["markers_before"]) or "—") + " → " + h(", ".join(c["markers_after"]) or "—")
        causes = "".join(_cause(x) for x in c["causes"]) or '<li class="muted">none in the window</li>'
        if c["causes_truncated"]:
            causes += f'<li class="muted">more further up, not listed ({h(TRUNCATED_CAUSES)})</li>'
        rows.append(f"<tr><td>{h(c['scope'] or '(global)')}</td><td>{h(c['entity'])}</td>"
                    f"<td>{h(c['attribute'])}</td><td>{_side(c['before'])}</td>"
                    f"<td>{_side(c['after'])}</td><td>{markers}</td>"
                    f'<td><ul class="causes">{causes}</ul></td></tr>')
    more = (f'<p class="muted">{inc.more_changes} more changes are not listed here: '
            f"<code>{h(inc.diff_command())}</code> lists them all.</p>" if inc.more_changes else "")
    return (head + "<table><tr><th>scope</th><th>entity</th><th>attribute</th><th>before</th>"
            "<th>after</th><th>markers</th><th>causes (seq order)</th></tr>"
            + "".join(rows) + "</table>" + more)


def _held(inc: Incident) -> str:
    held = inc.held
    if not held["count"]:
        return "<h2>Held queue</h2><p>Empty at the end of the window.</p>"
    return (f"<h2>Held queue</h2><p>{held['count']} held at the end of the window; the oldest, "
            f"{ident(held['oldest_id'])}, held since {h(held['oldest_since'])}.</p>")


def _findings(inc: Incident) -> str:
    counts = ", ".join(f'<span class="{s}">{n} {s}</span>' for s, n in inc.severity_counts.items())
    by_rule = ", ".join(f"{h(rule)} {n}" for rule, n in inc.rule_counts.items())
    rows = "".join(f'<tr><td class="{f["severity"]}">{h(f["severity"])}</td><td>{h(f["rule"])}</td>'
                   f"<td>{ident(f['memory_id'])}</td><td>{h(f['message'])}</td></tr>"
                   for f in inc.findings)
    table = ("<table><tr><th>severity</th><th>rule</th><th>entry</th><th>finding</th></tr>"
             f"{rows}</table>" if rows else "")
    more = (f'<p class="muted">{inc.more_findings} more findings are not listed here: '
            f"<code>{h(inc.scan_command())}</code> lists them all.</p>" if inc.more_findings else "")
    rules = f'<p class="muted">by rule: {by_rule}</p>' if by_rule else ""
    return f"<h2>Findings now</h2><p>{counts}</p>{rules}{table}{more}"


def _actions(inc: Incident) -> str:
    if not inc.actions:
        return '<h2>Actions taken</h2><p class="muted">No curation action in the window.</p>'
    rows = "".join(
        f"<tr><td>{ident(a['batch'])}</td><td>{h(a['at'])}</td><td>{h(a['op'])}</td>"
        f"<td>{h(a['actor'])}</td><td>{h(a['reason'])}</td><td>{a['events']}</td>"
        f"<td>{', '.join(ident(m) for m in a['memory_ids'])}</td></tr>" for a in inc.actions)
    return ("<h2>Actions taken</h2><table><tr><th>batch</th><th>at</th><th>op</th><th>operator</th>"
            f"<th>reason</th><th>events</th><th>entries</th></tr>{rows}</table>")


def _certificates(inc: Incident) -> str:
    if not inc.certificates:
        return '<h2>Certificates</h2><p class="muted">No erasure in the window.</p>'
    return ("<h2>Certificates</h2><ul>"
            + "".join(f"<li>{ident(c)}</li>" for c in inc.certificates) + "</ul>")


def _pictures(inc: Incident) -> str:
    if not inc.pictures:
        return ""
    parts = ["<h2>Lineage of the changed beliefs</h2>",
             '<p class="muted">Each belief on top, what it rests on below it; an arrow points to '
             "what an entry cites; a double border marks an independent source; the border's "
             "colour is the entry's status (green active, amber held, orange quarantined, red "
             "retracted or rejected).</p>"]
    for number, pic in enumerate(inc.pictures):
        notes = [f"{pic.descendants} {'entry rests' if pic.descendants == 1 else 'entries rest'} on it"]
        if pic.cut:
            notes.append(f"{pic.cut} more ancestors not drawn")
        parts.append(f"<h3>{h(pic.title)}: {ident(pic.memory_id)}</h3>"
                     f'<p class="muted">{h("; ".join(notes))}</p>' + svg.picture(pic, number))
    left = len(inc.changes) - len(inc.pictures)
    if left > 0:
        parts.append(f'<p class="muted">{left} listed changes have no picture here.</p>')
    return "\n".join(parts)
