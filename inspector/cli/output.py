"""How the command line prints: one JSON document, or Rich tables of sanitized text.

Every untrusted string goes through `inspector.present.text` (the one sanitizer); the console
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

from ..present.glyphs import MARK_LEGEND, SEVERITY_STYLE, badges
from ..present.text import DANGEROUS, render, safe, safe_value as value_text

# JSON escapes C0 itself; every other code point the sanitizer escapes is escaped here too.
_TERMINAL_UNSAFE = re.compile(f"[{DANGEROUS}]")


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


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def say(message: str) -> None:
    """One line on stderr (errors, warnings, notes): never wrapped, escapes visible."""
    sys.stderr.write(render(message, one_line=True) + "\n")
    sys.stderr.flush()


def console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False,
                   width=None, soft_wrap=False)


def cell(value: Any, max_chars: int | None = None) -> Text:
    """A table cell of untrusted text: one line, escapes visible."""
    return safe(value, one_line=True, max_chars=max_chars)


# Widest a column may grow; VALUE (and any column not named) takes what is left.
COLUMN_WIDTHS = {"SEVERITY": 8, "RULE": 26, "ID": 10, "ENTITY": 16, "ATTRIBUTE": 18, "SCOPE": 24, "MARK": 4, "SOURCE": 24,
                 "HELD BECAUSE": 20, "MARKER": 19, "SEQ": 8, "AT": 24, "OP": 10, "ACTOR": 18,
                 "RIVAL": 10, "REASON": 22}


def table(columns: Iterable[str], rows: Iterable[Iterable[Text | str]], title: str | None = None,
          width: int | None = None) -> Table:
    """One line a row; cells are cut with "…" to fit `width` (the console's by default).

    Columns in COLUMN_WIDTHS keep at most that width; the others share what is left.
    """
    names = list(columns)
    cells = [[c if isinstance(c, Text) else Text(str(c)) for c in row] for row in rows]
    natural = [max([len(n)] + [r[i].cell_len for r in cells]) for i, n in enumerate(names)]
    fixed = {i: min(natural[i], COLUMN_WIDTHS[n]) for i, n in enumerate(names) if n in COLUMN_WIDTHS}
    free = [i for i in range(len(names)) if i not in fixed]
    room = (width or console().width) - sum(fixed.values()) - 2 * (len(names) - 1)
    share = max(12, room // max(1, len(free)))
    out = Table(title=title, title_justify="left", show_edge=False, pad_edge=False,
                header_style="bold", box=None, expand=False)
    for i, name in enumerate(names):
        limit = fixed.get(i, min(natural[i], share))
        out.add_column(name, overflow="ellipsis", no_wrap=True, width=limit)
    for row in cells:
        out.add_row(*row)
    return out


# -- one printer per command -------------------------------------------------------------

# Short badges for the markers (DESIGN §3) and for how a store-wide row relates to others.


def marks(row: dict) -> list[str]:
    names = list(row["markers"])
    if row.get("overridden_in"):
        names.append("overridden")
    if row["belief_scope"] != row["scope"]:
        names.append("from_broader")
    return names


def print_beliefs(doc: dict) -> None:
    out = console()
    rows = [[cell(r["memory_id"], 12), cell(r["entity"], 20), cell(r["attribute"], 20),
             value_text(r["value"], 40), cell(r["scope"] or '""', 32),
             Text(badges(marks(r)), style="bold yellow")]
            for r in doc["beliefs"]]
    out.print(table(["ID", "ENTITY", "ATTRIBUTE", "VALUE", "SCOPE", "MARK"], rows))
    if any(r[-1].plain for r in rows):
        out.print(Text(MARK_LEGEND, style="dim"))
    where = f"context {doc['context']!r}" if doc["context"] is not None else "every scope"
    out.print(Text(f"{plural(len(rows), 'belief')}, {where}, as of {doc['as_of']}"
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
            line = Text(f"  {name:<15}", style="dim")
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
    rows = [[cell(e["id"], 12), cell(e.get("held_reason")), cell(e.get("entity"), 20),
             cell(e.get("attribute"), 20), value_text(e.get("value"), 40), cell(e.get("source"), 28)]
            for e in doc["held"]]
    out = console()
    out.print(table(["ID", "HELD BECAUSE", "ENTITY", "ATTRIBUTE", "VALUE", "SOURCE"], rows))
    out.print(Text(f"{len(rows)} held", style="dim"))


def print_conflicts(doc: dict) -> None:
    rows = [[Text(c["marker"], style="yellow"), cell(", ".join(c["memory_ids"]), 40),
             cell(c["entity"], 20), cell(c["attribute"], 20), cell(c["scope"] or '""', 32)]
            for c in doc["conflicts"]]
    out = console()
    out.print(table(["MARKER", "BELIEF, CAUSES", "ENTITY", "ATTRIBUTE", "SCOPE"], rows))
    out.print(Text(plural(len(rows), "conflict"), style="dim"))


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
    say(f"written {len(result.written)}, held {len(result.held)}, "
        f"updated {len(result.updated)}, unchanged {len(result.unchanged)}, "
        f"rejected lines {len(result.rejected)}")
    for memory_id, reason in result.held.items():
        say(f"  held {memory_id}: {reason}")
    for number, error in result.rejected:
        say(f"  line {number}: {error}")


def _belief_side(side: dict | None) -> Text:
    if side is None:
        return Text("(no belief)", style="dim")
    text = cell(side["memory_id"])
    text.append(" ")
    text.append_text(value_text(side["value"], 40))
    return text


def print_plan(doc: dict) -> None:
    out = console()
    verb = "would" if doc["dry_run"] else "did"
    head = Text(f"{doc['op']}: {plural(len(doc['affected']), 'entry', 'entries')} "
                f"{'to change' if doc['dry_run'] else 'changed'}")
    if doc.get("batch"):
        head.append(f" in batch {doc['batch']} (seq {doc['seqs'][0]}–{doc['seqs'][-1]})")
    out.print(head)
    out.print(table(["ID", "FROM", "TO"], [[cell(e["memory_id"]), e["from"], e["to"]]
                                          for e in doc["events"]]))
    if doc["skipped"]:
        out.print(Text(f"skipped (status does not allow {doc['op']}):", style="dim"))
        out.print(table(["ID", "STATUS"], [[cell(i), s] for i, s in doc["skipped_status"].items()]))
    if doc["belief_changes"]:
        out.print(Text(f"beliefs that {verb} change:", style="bold"))
        out.print(table(["SCOPE", "ENTITY", "ATTRIBUTE", "BEFORE", "AFTER"],
                        [[cell(c["scope"] or '""'), cell(c["entity"]), cell(c["attribute"]),
                          _belief_side(c["before"]), _belief_side(c["after"])]
                         for c in doc["belief_changes"]]))
    else:
        out.print(Text("no belief changes", style="dim"))
    if doc["dry_run"]:
        out.print(Text("dry run: nothing written", style="dim"))


def print_certificate(doc: dict) -> None:
    out, cert = console(), doc["certificate"]
    if doc["dry_run"]:
        out.print(Text("erasure plan (dry run: nothing written)", style="bold"))
    else:
        out.print(Text(f"erased; certificate {cert['id']} written to certificates/{cert['id']}.json",
                       style="bold"))
    counts = ", ".join(f"{k} {v}" for k, v in cert["counts"].items())
    out.print(Text(f"  counts         {counts}"))
    for label, key in (("erased", "erased_ids"), ("retained", "retained_ids")):
        _print_ids(out, f"  {label:<14}", cert[key])
    out.print(Text(f"  redacted seqs  {len(cert['redacted_seqs'])}"))
    out.print(Text(f"  head before    {cert['head_before']}"))
    if cert["head_after"]:
        out.print(Text(f"  head after     {cert['head_after']}"))




def print_findings(doc: dict) -> None:
    out = console()
    rows = [[Text(f["severity"], style=SEVERITY_STYLE[f["severity"]]), Text(f["rule"]),
             cell(f["memory_id"], 12), cell(f["message"], 200)] for f in doc["findings"]]
    out.print(table(["SEVERITY", "RULE", "ID", "MESSAGE"], rows))
    out.print(Text(plural(len(rows), "finding"), style="dim"))
