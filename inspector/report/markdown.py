"""The incident report as Markdown: the same sections as the HTML page, tables for the lists,
and each lineage as a text tree in a fenced block. Untrusted text goes through the sanitizer,
is HTML-escaped (a Markdown viewer renders raw HTML) and has Markdown's own punctuation
escaped, so a value can neither add a link, an image or a table cell nor close a fence. What a
GFM viewer would turn into a link by itself (a URL, `www.` and a host, an e-mail address, which
no escape stops) is shown as code."""

from __future__ import annotations

import re

from ..present.text import as_str, render
from ..store.diff import TRUNCATED_CAUSES
from ..store.model import format_time
from ..store.reports import manifest_line, markdown_text
from .incident import Incident, Picture

VALUE_CHARS = 400
# GFM's extended autolinks (a scheme and ://, www., an e-mail address with or without mailto:
# or xmpp:): a code span is never one. The span holds no backtick, pipe, space, angle bracket,
# quote or parenthesis, and ends before trailing punctuation, as GFM's own links do.
_URL_TAIL = r"(?:[^\s`|<>\"'()]*[^\s`|<>\"'().,;:!?])?"
_LINKISH = re.compile(rf"[A-Za-z][A-Za-z0-9+.-]*://{_URL_TAIL}|www\.{_URL_TAIL}"
                      r"|[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9_-]+)+")


def md(value, limit: int | None = None) -> str:
    """Untrusted text for a Markdown table cell or paragraph."""
    shown = render(as_str(value), one_line=True)
    if limit is not None and len(shown) > limit:
        shown = f"{shown[:limit]}… ({len(shown)} chars)"
    parts, at = [], 0
    for link in _LINKISH.finditer(shown):
        parts += [markdown_text(shown[at:link.start()]), f"`{link.group(0)}`"]
        at = link.end()
    return "".join([*parts, markdown_text(shown[at:])])


def ident(value) -> str:
    return md(value) if value else "—"


def render_markdown(incident: Incident) -> str:
    parts = [manifest_line(incident.mentions), ""]
    for section in (_summary, _changes, _held, _findings, _actions, _certificates, _pictures):
        parts.extend(section(incident))
        parts.append("")
    return "\n".join(parts)


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return (["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            + ["| " + " | ".join(row) + " |" for row in rows])


def _summary(inc: Incident) -> list[str]:
    v = inc.verdict
    verdict = ("chain verified" if v["ok"] else
               f"**chain broken at seq {md(v['first_bad_seq'])}**: {md(v['problem'])}")
    since = md(format_time(inc.since)) if inc.since else "the first event"
    return ["# Incident report", "",
            f"- store: {ident(inc.store)}", f"- head: {ident(inc.head)}",
            f"- audit --verify: {verdict}",
            f"- window: {since} → {md(format_time(inc.until))}",
            f"- written: {md(format_time(inc.generated))}",
            f"- beliefs: {md(inc.rule)}; store-wide, each time sets the knowledge and valid time"]


def _side(side: dict | None) -> str:
    if side is None:
        return "(no belief)"
    return f"{ident(side['memory_id'])}: {md(side['value'], VALUE_CHARS)}"


def _cause(c: dict) -> str:
    text = f"seq {c['seq']} {md(c['at'])} **{md(c['op'])}** {ident(c['memory_id'])} by {md(c['actor'])}"
    if c["batch"]:
        text += f" batch {ident(c['batch'])}"
    return text + (f" — {md(c['reason'])}" if c["reason"] else "")


def _changes(inc: Incident) -> list[str]:
    out = [f"## Belief changes ({len(inc.changes) + inc.more_changes})", ""]
    if not inc.changes:
        return out + ["No belief changed in the window."]
    rows = [[md(c["scope"] or "(global)"), md(c["entity"]), md(c["attribute"]),
             _side(c["before"]), _side(c["after"]),
             md(", ".join(c["markers_before"]) or "—") + " → " + md(", ".join(c["markers_after"]) or "—"),
             "<br>".join([_cause(x) for x in c["causes"]]
                         + ([f"more further up, not listed ({TRUNCATED_CAUSES})"]
                            if c["causes_truncated"] else [])) or "none in the window"]
            for c in inc.changes]
    out += _table(["scope", "entity", "attribute", "before", "after", "markers",
                   "causes (seq order)"], rows)
    if inc.more_changes:
        out += ["", f"{inc.more_changes} more changes are not listed here: "
                    f"{md(inc.diff_command())} lists them all."]
    return out


def _held(inc: Incident) -> list[str]:
    held = inc.held
    if not held["count"]:
        return ["## Held queue", "", "Empty at the end of the window."]
    return ["## Held queue", "", f"{held['count']} held at the end of the window; the oldest, "
                                 f"{ident(held['oldest_id'])}, held since {md(held['oldest_since'])}."]


def _findings(inc: Incident) -> list[str]:
    out = ["## Findings now", "", ", ".join(f"{n} {s}" for s, n in inc.severity_counts.items())]
    if inc.rule_counts:
        out += ["", "By rule: " + ", ".join(f"{md(r)} {n}" for r, n in inc.rule_counts.items())]
    if inc.findings:
        out += [""] + _table(["severity", "rule", "entry", "finding"],
                             [[f["severity"], md(f["rule"]), ident(f["memory_id"]), md(f["message"])]
                              for f in inc.findings])
    if inc.more_findings:
        out += ["", f"{inc.more_findings} more findings are not listed here: "
                    f"{md(inc.scan_command())} lists them all."]
    return out


def _actions(inc: Incident) -> list[str]:
    if not inc.actions:
        return ["## Actions taken", "", "No curation action in the window."]
    return ["## Actions taken", ""] + _table(
        ["batch", "at", "op", "operator", "reason", "events", "entries"],
        [[ident(a["batch"]), md(a["at"]), md(a["op"]), md(a["actor"]), md(a["reason"]),
          str(a["events"]), ", ".join(ident(m) for m in a["memory_ids"])] for a in inc.actions])


def _certificates(inc: Incident) -> list[str]:
    if not inc.certificates:
        return ["## Certificates", "", "No erasure in the window."]
    return ["## Certificates", ""] + [f"- {ident(c)}" for c in inc.certificates]


def _pictures(inc: Incident) -> list[str]:
    if not inc.pictures:
        return []
    out = ["## Lineage of the changed beliefs", "",
           "Each belief first, what it rests on indented below it; `(source)` marks an "
           "independent source."]
    for pic in inc.pictures:
        notes = f"{pic.descendants} {'entry rests' if pic.descendants == 1 else 'entries rest'} on it" + (
            f"; {pic.cut} more ancestors not drawn" if pic.cut else "")
        out += ["", f"### {md(pic.title)}: {ident(pic.memory_id)}", "", notes, ""]
        out += _fenced(_tree(pic))
    return out


def _tree(pic: Picture) -> list[str]:
    """The belief and what it rests on, depth first, each entry once (a repeat says so)."""
    nodes = {n.memory_id: n for layer in pic.layers for n in layer}
    cites: dict[str, list[str]] = {}
    for src, dst in pic.edges:
        cites.setdefault(src, []).append(dst)
    lines, seen, work = [], set(), [(pic.memory_id, 0)]
    while work:
        memory_id, depth = work.pop()
        node = nodes[memory_id]
        text = render(f"{node.memory_id}  {node.label}  [{node.kind} · {node.status} · {node.source}]",
                      one_line=True)
        if memory_id in seen:
            lines.append("  " * depth + f"{render(memory_id, one_line=True)} (above)")
            continue
        seen.add(memory_id)
        lines.append("  " * depth + text + ("  (source)" if node.root else ""))
        work.extend((d, depth + 1) for d in sorted(cites.get(memory_id, []), reverse=True))
    return lines


def _fenced(lines: list[str]) -> list[str]:
    """A fenced block no line of the content can close (its fence is longer than any run)."""
    longest = max((len(run) for line in lines for run in re.findall(r"~+", line)), default=0)
    fence = "~" * max(3, longest + 1)
    return [fence + "text", *lines, fence]
