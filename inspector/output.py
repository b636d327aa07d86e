"""How the command line prints: one JSON document, or Rich tables of sanitized text.

Every untrusted string goes through `inspector.tui.text` (the one sanitizer); the console
never parses markup, emoji codes or highlights, and JSON output escapes the code points a
terminal would act on (DEL, C1, bidi controls) as well as the C0 controls JSON escapes.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Iterable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .tui.text import safe, safe_json

_TERMINAL_UNSAFE = re.compile(
    "[\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
    "\U000e0000-\U000e007f]")


def _json_escape(match: re.Match) -> str:
    code = ord(match.group())
    if code > 0xFFFF:
        code -= 0x10000
        return "\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))
    return "\\u%04x" % code


def dumps(document: Any) -> str:
    """JSON text safe to print: these code points can only occur inside strings."""
    text = json.dumps(document, ensure_ascii=False, indent=2, default=str)
    return _TERMINAL_UNSAFE.sub(_json_escape, text)


def print_json(document: Any) -> None:
    sys.stdout.write(dumps(document) + "\n")


def console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False,
                   width=None, soft_wrap=False)


def cell(value: Any, max_chars: int | None = None) -> Text:
    """A table cell of untrusted text: one line, escapes visible."""
    return safe(value, one_line=True, max_chars=max_chars)


def table(columns: Iterable[str], rows: Iterable[Iterable[Text | str]], title: str | None = None) -> Table:
    out = Table(title=title, title_justify="left", show_edge=False, pad_edge=False,
                header_style="bold", box=None, expand=False)
    for name in columns:
        out.add_column(name, overflow="fold", no_wrap=False)
    for row in rows:
        out.add_row(*[c if isinstance(c, Text) else Text(str(c)) for c in row])
    return out


def value_text(value: Any, max_chars: int | None = None) -> Text:
    """A memory value: strings shown bare, anything else as JSON."""
    if isinstance(value, str):
        return safe(value, one_line=True, max_chars=max_chars)
    return safe_json(value, one_line=True, max_chars=max_chars)


# -- one printer per command -------------------------------------------------------------

MARK_BADGES = {"contested": "contested", "claim_disagrees": "claim≠", "inference_disagrees": "inference≠",
               "vetoed_newer": "vetoed-newer"}


def _marks(row: dict) -> Text:
    badges = [MARK_BADGES[m] for m in row["markers"]]
    if row.get("overridden_in"):
        badges.append(f"overridden-in-{len(row['overridden_in'])}")
    if row["belief_scope"] != row["scope"]:
        badges.append("from-broader")
    return Text(" ".join(badges), style="yellow")


def print_beliefs(doc: dict) -> None:
    out = console()
    rows = [[cell(r["entity"], 24), cell(r["attribute"], 24), value_text(r["value"], 32),
             cell(r["scope"] or '""', 28), _marks(r), cell(r["memory_id"], 16)]
            for r in doc["beliefs"]]
    out.print(table(["ENTITY", "ATTRIBUTE", "VALUE", "SCOPE", "MARKS", "ID"], rows))
    where = f"context {doc['context']!r}" if doc["context"] is not None else "every scope"
    out.print(Text(f"{len(rows)} beliefs, {where}, as of {doc['as_of']}"
                   + (f", valid at {doc['valid_at']}" if doc["valid_at"] != doc["as_of"] else "")
                   + f" — {doc['rule']}", style="dim"))


def print_show(doc: dict) -> None:
    out, entry = console(), doc["entry"]
    title = Text("")
    title.append_text(cell(entry.get("entity")))
    title.append(" · ")
    title.append_text(cell(entry.get("attribute")))
    title.append(" = ")
    title.append_text(value_text(entry.get("value"), 200))
    out.print(title)
    for name in ("id", "kind", "layer", "status", "held_reason", "source", "authority", "confidence",
                 "scope", "subject", "observed_at", "valid_from", "valid_to", "justification",
                 "context", "sensitivity", "retention", "expires_at", "tags"):
        if entry.get(name) not in (None, [], ""):
            line = Text(f"  {name:<13}", style="dim")
            line.append_text(value_text(entry[name], 200))
            out.print(line)
    if doc.get("why"):
        out.print(Text(f"why: {doc['why']}" if doc["reason"] == "belief" else
                       f"not the belief: {doc['reason']}", style="bold"))
    if doc["rivals"]:
        out.print(table(["RIVAL", "VALUE", "REASON"],
                        [[cell(r["memory_id"]), value_text(r["value"], 40), cell(r["reason"])]
                         for r in doc["rivals"]], title="rivals (in its own scope, now)"))
    out.print(table(["SEQ", "AT", "OP", "ACTOR", "REASON"],
                    [[str(e["seq"]), e["at"], e["op"], cell(e["actor"]), cell(e["reason"], 40)]
                     for e in doc["events"]], title="history"))
    _print_ids(out, "rests on", doc["ancestors"])
    _print_ids(out, "rests on it", doc["descendants"])
    _print_ids(out, "independent sources", doc["independent_sources"])


def _print_ids(out: Console, label: str, ids: list[str]) -> None:
    line = Text(f"{label}: ", style="dim")
    line.append_text(cell(", ".join(ids) if ids else "(none)", 400))
    out.print(line)


def print_held(doc: dict) -> None:
    rows = [[cell(e["id"], 16), cell(e.get("entity"), 20), cell(e.get("attribute"), 20),
             value_text(e.get("value"), 32), cell(e.get("source"), 24), cell(e.get("held_reason"))]
            for e in doc["held"]]
    out = console()
    out.print(table(["ID", "ENTITY", "ATTRIBUTE", "VALUE", "SOURCE", "HELD BECAUSE"], rows))
    out.print(Text(f"{len(rows)} held", style="dim"))


def print_conflicts(doc: dict) -> None:
    rows = [[cell(c["entity"], 24), cell(c["attribute"], 24), cell(c["scope"] or '""', 28),
             Text(c["marker"], style="yellow"), cell(", ".join(c["memory_ids"]), 60)]
            for c in doc["conflicts"]]
    out = console()
    out.print(table(["ENTITY", "ATTRIBUTE", "SCOPE", "MARKER", "BELIEF, THEN CAUSES"], rows))
    out.print(Text(f"{len(rows)} conflicts", style="dim"))


def print_lineage(doc: dict) -> None:
    out = console()
    line = Text("lineage of ")
    line.append_text(cell(doc["memory_id"]))
    out.print(line)
    for label, key in (("rests on", "ancestors"), ("rests on it", "descendants"),
                       ("independent sources", "independent_sources"), ("dangling", "dangling")):
        _print_ids(out, label, doc[key])
    for cycle in doc["cycles"]:
        _print_ids(out, "cycle", cycle)
    if doc.get("hidden"):
        out.print(Text(f"{doc['hidden']} cited entries lie outside the --scope filter", style="dim"))
    if len(doc["independent_sources"]) == 1 and len(doc["ancestors"]) > 1:
        out.print(Text("⚠ everything it rests on traces to one independent source", style="yellow"))


def print_audit(doc: dict) -> None:
    out = console()
    status = {True: Text("chain ✓ verified", style="green"), False: Text("chain ✗ BROKEN", style="bold red"),
              None: Text("chain not verified (run with --verify)", style="dim")}[doc["ok"]]
    out.print(status)
    for name in ("events", "head", "redacted", "unchained", "first_bad_seq", "problem", "torn_bytes"):
        if doc.get(name) not in (None, 0) or name in ("events", "head"):
            line = Text(f"  {name:<14}", style="dim")
            line.append_text(cell(doc.get(name)))
            out.print(line)


def print_ingest(result) -> None:
    out = console(stderr=True)
    out.print(Text(f"written {len(result.written)}, held {len(result.held)}, "
                   f"updated {len(result.updated)}, rejected lines {len(result.rejected)}"))
    for memory_id, reason in result.held.items():
        line = Text("  held ")
        line.append_text(cell(memory_id))
        line.append(f": {reason}")
        out.print(line)
    for number, error in result.rejected:
        out.print(cell(f"  line {number}: {error}", 200))
