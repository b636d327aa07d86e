"""How the command line prints for people: Rich tables of sanitized text (`--json` is
jsonout.py).

Every untrusted string goes through `inspector.present.text` (the one sanitizer); the console
never parses markup, emoji codes or highlights. Human output never cuts an id, at any terminal width: id columns keep their whole width and
the other columns shrink; `--wide` shows whole values too. Values of secret entries are
masked (`inspector.present.mask`) unless `--reveal-secrets`; `--json` carries them whole.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..store.diff import TRUNCATED_CAUSES
from ..store.model import seq_span
from ..present.glyphs import MARK_LEGEND, SEVERITY_STYLE, badges
from ..present.mask import shown_value
from ..present.text import safe, safe_value as value_text
from .lines import say  # noqa: F401  (output.say: the commands that print tables say through it too)

def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def console(stderr: bool = False, width: int | None = None) -> Console:
    """A console that never parses markup; `width` None: the terminal's (or $COLUMNS)."""
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False,
                   width=width, soft_wrap=False)


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.:-]+")


def field_name(name: str) -> Text:
    """An extra field's name: as written when it is a plain identifier, else quoted as JSON in
    ASCII, so every space and invisible character in it shows ("status " with a trailing space,
    or "status\u00a0", read as a second `status` line: helper-58, stop 54)."""
    return cell(name) if _PLAIN_NAME.fullmatch(name) else Text(json.dumps(name))


def cell(value: Any, max_chars: int | None = None) -> Text:
    """A table cell of untrusted text: one line, escapes visible (the spaces it begins or ends
    with too)."""
    return safe(value, one_line=True, max_chars=max_chars, edges=True)


# -- what a person sees: whole ids, values cut to the terminal unless --wide, secrets masked --

# Columns that hold ids (and the seq and time of an event): always shown whole; the other
# columns shrink to make room.
ID_COLUMNS = frozenset({"ID", "BATCH", "RIVAL", "BELIEF, CAUSES", "CERTIFICATE", "SEQ", "AT",
                        "ACTOR"})   # who wrote an event: cut, it named no one (helper-63)
# Columns of long free text: they give way first.
ELASTIC_COLUMNS = frozenset({"VALUE", "MESSAGE", "REASON"})
GAP = 2


@dataclass(frozen=True)
class Display:
    """How human output is drawn. `wide`: whole values, no column cut (lines may be longer
    than the terminal). `reveal`: secrets unmasked. `fields`: per id, what besides the value
    decides masking (held_reason, sensitivity), from the store."""

    wide: bool = False
    reveal: bool = False
    fields: Mapping[str, dict] = field(default_factory=dict)

    def value(self, memory_id: str | None, value: Any) -> Any:
        """The value as a person may see it (masked when the entry's value is a secret)."""
        return shown_value({**self.fields.get(memory_id or "", {}), "value": value}, self.reveal)

    def value_text(self, memory_id: str | None, value: Any, room: int | None = None) -> Text:
        """The shown value as one line; cut to `room` characters unless wide."""
        return value_text(self.value(memory_id, value), None if self.wide else room)


PLAIN = Display()


def fit(names: list[str], natural: list[int], width: int) -> list[int]:
    """Column widths for a table `width` cells wide. Id columns keep their whole width. The
    long-text columns (VALUE, MESSAGE, REASON) give way first, widest first, down to 16; then
    every other column, widest first, down to its header (or 6). When the ids alone do not
    fit, the table is wider than `width` rather than cut an id."""
    room = width - GAP * (len(names) - 1)
    widths = list(natural)
    elastic = [i for i, n in enumerate(names) if n in ELASTIC_COLUMNS]
    flexible = [i for i, n in enumerate(names) if n not in ID_COLUMNS]
    for group, floor in ((elastic, 16), (flexible, 6)):
        if sum(widths) <= room:
            break
        widths = _shrink(widths, group, {i: min(widths[i], max(len(names[i]), floor)) for i in group},
                         room)
    return widths


def _shrink(widths: list[int], group: list[int], floor: dict[int, int], room: int) -> list[int]:
    """Cut the columns in `group` to one level (none below its floor), the widest level at
    which the table fits `room`, or to their floors when none does."""
    others = sum(w for i, w in enumerate(widths) if i not in floor)

    def at(level: int, i: int) -> int:
        return max(floor[i], min(widths[i], level))

    low, high = 0, max(widths)
    while low < high:
        mid = (low + high + 1) // 2
        fits = others + sum(at(mid, i) for i in group) <= room
        low, high = (mid, high) if fits else (low, mid - 1)
    return [at(low, i) if i in floor else w for i, w in enumerate(widths)]


def print_table(out: Console, columns: Iterable[str], rows: Iterable[Iterable[Text | str]],
                title: str | None = None, display: Display = PLAIN) -> None:
    """One line a row. Ids whole; other cells cut with "…" to fit the terminal (not with
    --wide). Rows wider than the terminal are printed whole, never cropped."""
    names = list(columns)
    cells = [[c if isinstance(c, Text) else Text(str(c)) for c in row] for row in rows]
    natural = [max([len(n)] + [r[i].cell_len for r in cells]) for i, n in enumerate(names)]
    widths = _aligned(names, cells, out.width) if display.wide else fit(names, natural, out.width)
    need = sum(widths) + GAP * (len(names) - 1)
    draw_table(out if need <= out.width else console(out.stderr, need), names, cells, widths, title,
               display.wide)


def _aligned(names: list[str], cells: list[list[Text]], width: int) -> list[int]:
    """--wide's column widths: each column's widest cell that fits the terminal; a cell wider
    runs on, pushing the rest of its own line right. Aligned to the widest cell, one value of
    a megabyte padded every row to a megabyte (300 rows: 302 MB printed, 1.5 GB of memory)."""
    return [max([len(n)] + [r[i].cell_len for r in cells if r[i].cell_len <= width])
            for i, n in enumerate(names)]


ROWS_A_PRINT = 1000


def draw_table(out: Console, names: list[str], cells: list[list[Text]], widths: list[int],
               title: str | None, run_on: bool = False) -> None:
    """The table at these column widths: its title and header drawn by Rich's Table, then
    its rows (table_rows)."""
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False,
                  header_style="bold", box=None, expand=False, padding=(0, GAP // 2))
    for name, width in zip(names, widths):
        table.add_column(name, overflow="ellipsis", no_wrap=True, width=width)
    out.print(table, crop=False)
    for start in range(0, len(cells), ROWS_A_PRINT):   # Rich renders a print whole, then writes
        out.print(table_rows(cells[start:start + ROWS_A_PRINT], widths, run_on), crop=False,
                  soft_wrap=True)


def table_rows(cells: list[list[Text]], widths: list[int], run_on: bool = False) -> Text:
    """The rows of print_table's table, one line each: every cell cut to its column's width
    with "…" and padded, GAP spaces between columns. This is what Rich's Table draws for
    columns of fixed width, no_wrap and ellipsis (tests/unit/test_output_rows.py compares
    the two, styles included), without Rich's table layout: `show` of an entry with 5,000
    events and 5,000 rivals took 3.7 s, 1.9 s this way (the output byte for byte the same).
    `run_on` (--wide): a cell wider than its column is printed whole instead."""
    gap, last, lines = " " * GAP, len(widths) - 1, []
    for row in cells:
        line = Text()
        for i, (cell_text, width) in enumerate(zip(row, widths)):
            cell_text = cell_text.copy()
            if not (run_on and cell_text.cell_len > width):
                cell_text.truncate(width, overflow="ellipsis", pad=True)
            line.append_text(cell_text)
            if i < last:
                line.append(gap)
        lines.append(line)
    return Text("\n").join(lines)


def line(out: Console, *parts: Text | str, style: str | None = None) -> None:
    """One line of text, never wrapped or cut by us (the terminal may fold it)."""
    text = Text("", style=style or "")
    for part in parts:
        text.append_text(part if isinstance(part, Text) else Text(part))
    out.print(text, soft_wrap=True, crop=False)


# -- one printer per command -------------------------------------------------------------

# Short badges for the markers (DESIGN §3) and for how a store-wide row relates to others.


def marks(row: dict) -> list[str]:
    names = list(row["markers"])
    if row.get("overridden_in"):
        names.append("overridden")
    if row["belief_scope"] != row["scope"]:
        names.append("from_broader")
    return names


def print_beliefs(doc: dict, display: Display = PLAIN) -> None:
    out = console()
    rows = [[cell(r["memory_id"]), cell(r["entity"]), cell(r["attribute"]),
             display.value_text(r["memory_id"], r["value"], out.width), cell(r["scope"] or '""'),
             Text(badges(marks(r)), style="bold yellow")]
            for r in doc["beliefs"]]
    print_table(out, ["ID", "ENTITY", "ATTRIBUTE", "VALUE", "SCOPE", "MARK"], rows, display=display)
    if any(r[-1].plain for r in rows):
        line(out, Text(MARK_LEGEND, style="dim"))
    where = f"context {doc['context']!r}" if doc["context"] is not None else "every scope"
    line(out, Text(f"{plural(len(rows), 'belief')}, {where}, as of {doc['as_of']}"
                   + (f", valid at {doc['valid_at']}" if doc["valid_at"] != doc["as_of"] else "")
                   + f" — {doc['rule']}", style="dim"))


SHOWN_FIELDS = ("id", "kind", "layer", "status", "held_reason", "source", "authority", "confidence",
                "scope", "subject", "observed_at", "valid_from", "valid_to", "justification",
                "context", "sensitivity", "retention", "expires_at", "tags")


NAME_FIELDS = frozenset({"id", "source", "scope", "subject", "context"})


def print_show(doc: dict, display: Display = PLAIN) -> None:
    out, entry = console(), doc["entry"]
    entry_display = Display(display.wide, display.reveal, {**display.fields, entry.get("id") or "": entry})
    if entry.get("status") == "erased":     # its entity, attribute and value left the log
        line(out, cell(entry.get("id")), " · erased: its entity, attribute and value are gone")
    else:
        line(out, cell(entry.get("entity")), " · ", cell(entry.get("attribute")), " = ",
             entry_display.value_text(entry.get("id"), entry.get("value"), out.width))
    for name in SHOWN_FIELDS:
        if entry.get(name) not in (None, [], ""):
            shown = entry[name]     # a name is drawn as a cell is (look-alike letters escaped)
            line(out, Text(f"  {name:<15}", style="dim"),
                 cell(shown) if name in NAME_FIELDS and isinstance(shown, str) else value_text(shown))
    for name in sorted(set(entry) - set(SHOWN_FIELDS) - {"entity", "attribute", "value"}):
        named = field_name(name)    # an unknown extra field, kept as written: untrusted
        line(out, Text("  "), named, Text(" " * max(1, 15 - named.cell_len)), value_text(entry[name]))
    if doc.get("why"):
        line(out, Text(f"why: {doc['why']}" if doc["reason"] == "belief" else
                       f"not the belief: {doc['reason']}", style="bold"))
    if doc["rivals"]:
        print_table(out, ["RIVAL", "VALUE", "REASON"],
                    [[cell(r["memory_id"]), display.value_text(r["memory_id"], r["value"], out.width),
                      cell(r["reason"])] for r in doc["rivals"]],
                    title="rivals (in its own scope, now)", display=display)
    print_table(out, ["SEQ", "AT", "OP", "ACTOR", "BATCH", "REASON"],
                [[str(e["seq"]), e["at"], e["op"], cell(e["actor"]), cell(e.get("batch") or ""),
                  cell(e["reason"])] for e in doc["events"]], title="history", display=display)
    _print_ids(out, "rests on", doc["ancestors"])
    _print_ids(out, "rests on it", doc["descendants"])
    _print_ids(out, "independent sources", doc["independent_sources"])
    _print_hidden(out, doc)


def _print_hidden(out: Console, doc: dict) -> None:
    """What --scope left out of the lineage: without it, '(none)' reads as no sources at all."""
    if doc.get("hidden"):
        n = doc["hidden"]
        line(out, Text(f"{plural(n, 'cited entry', 'cited entries')} "
                       f"{'lies' if n == 1 else 'lie'} outside the --scope filter", style="dim"))


def _print_ids(out: Console, label: str, ids: list[str]) -> None:
    line(out, Text(f"{label}: ", style="dim"), cell(", ".join(ids) if ids else "(none)"))


def print_held(doc: dict, display: Display = PLAIN) -> None:
    out = console()
    rows = [[cell(e["id"]), cell(e.get("held_reason")), cell(e.get("entity")),
             cell(e.get("attribute")),
             Display(display.wide, display.reveal, {e["id"]: e}).value_text(e["id"], e.get("value"), out.width),
             cell(e.get("source"))]
            for e in doc["held"]]
    print_table(out, ["ID", "HELD BECAUSE", "ENTITY", "ATTRIBUTE", "VALUE", "SOURCE"], rows,
                display=display)
    line(out, Text(f"{len(rows)} held", style="dim"))


def print_conflicts(doc: dict, display: Display = PLAIN) -> None:
    rows = [[Text(c["marker"], style="yellow"), cell(", ".join(c["memory_ids"])),
             cell(c["entity"]), cell(c["attribute"]), cell(c["scope"] or '""')]
            for c in doc["conflicts"]]
    out = console()
    print_table(out, ["MARKER", "BELIEF, CAUSES", "ENTITY", "ATTRIBUTE", "SCOPE"], rows,
                display=display)
    line(out, Text(plural(len(rows), "conflict"), style="dim"))


def print_lineage(doc: dict, display: Display = PLAIN) -> None:
    out = console()
    line(out, "lineage of ", cell(doc["memory_id"]))
    for label, key in (("rests on", "ancestors"), ("rests on it", "descendants"),
                       ("independent sources", "independent_sources"), ("dangling", "dangling")):
        _print_ids(out, label, doc[key])
    for cycle in doc["cycles"]:
        _print_ids(out, "cycle", cycle)
    _print_hidden(out, doc)
    if len(doc["independent_sources"]) == 1 and len(doc["ancestors"]) > 1:
        line(out, Text("⚠ everything it rests on traces to one independent source", style="yellow"))


def print_audit(doc: dict, display: Display = PLAIN) -> None:
    out = console()
    status = {True: Text("chain ✓ verified", style="green"), False: Text("chain ✗ BROKEN", style="bold red"),
              None: Text("chain not verified (run with --verify)", style="dim")}[doc["ok"]]
    line(out, status)
    for name in ("events", "head", "redacted", "unchained", "first_bad_seq", "problem", "torn_bytes"):
        if doc.get(name) not in (None, 0) or name in ("events", "head"):
            line(out, Text(f"  {name:<14}", style="dim"), cell(doc.get(name)))


def print_audit_log(doc: dict, display: Display = PLAIN) -> None:
    out = console()
    rows = [[str(e["seq"]), e["at"], e["op"], cell(e["memory_id"]), cell(e["actor"]),
             cell(e["batch"] or ""), cell(e["reason"] or "")] for e in doc["events"]]
    print_table(out, ["SEQ", "AT", "OP", "ID", "ACTOR", "BATCH", "REASON"], rows, display=display)
    window = [f"since {doc['since']}" if doc["since"] else "", f"until {doc['until']}" if doc["until"] else ""]
    summary = Text(" ".join([plural(len(rows), "event")] + [w for w in window if w]), style="dim")
    if doc["memory_id"]:        # the id as typed: untrusted, shown through the sanitizer
        line(out, summary, Text(" about ", style="dim"), cell(doc["memory_id"]))
    else:
        line(out, summary)


def _print_change(out: Console, change: dict, display: Display) -> None:
    """One belief change as a block: key and scope, the belief before and after (id first,
    then the value cut to the line), and, for a diff, the markers."""
    line(out, cell(change["entity"]), " · ", cell(change["attribute"]),
         Text(" in ", style="dim"), cell(change["scope"] or '""'), style="bold")
    for label in ("before", "after"):
        side = change[label]
        if side is None:
            line(out, Text(f"  {label:<7}", style="dim"), Text("(no belief)", style="dim"))
            continue
        head = cell(side["memory_id"])
        room = max(8, out.width - 11 - head.cell_len)
        line(out, Text(f"  {label:<7}", style="dim"), head, "  ",
             display.value_text(side["memory_id"], side["value"], room))
    if "markers_before" in change and change["markers_before"] != change["markers_after"]:
        line(out, Text("  markers ", style="dim"), cell(", ".join(change["markers_before"]) or "(none)"),
             " → ", cell(", ".join(change["markers_after"]) or "(none)"))


def print_plan(doc: dict, display: Display = PLAIN) -> None:
    out = console()
    verb = "would" if doc["dry_run"] else "did"
    head = Text(f"{doc['op']}: {plural(len(doc['affected']), 'entry', 'entries')} "
                f"{'to change' if doc['dry_run'] else 'changed'}")
    if doc.get("batch"):        # a batch id read from the log: untrusted
        head.append(" in batch ")
        head.append_text(cell(doc["batch"]))
        head.append(f" ({seq_span(doc['seqs'])})")
    line(out, head)
    print_table(out, ["ID", "FROM", "TO"], [[cell(e["memory_id"]), e["from"], e["to"]]
                                            for e in doc["events"]], display=display)
    if doc["skipped"]:
        line(out, Text(f"skipped (status does not allow {doc['op']}):", style="dim"))
        print_table(out, ["ID", "STATUS"], [[cell(i), s] for i, s in doc["skipped_status"].items()],
                    display=display)
    if doc["belief_changes"]:
        line(out, Text(f"beliefs that {verb} change:", style="bold"))
        for change in doc["belief_changes"]:
            _print_change(out, change, display)
    else:
        line(out, Text("no belief changes", style="dim"))
    if doc["dry_run"]:
        line(out, Text("dry run: nothing written", style="dim"))


def print_diff(doc: dict, display: Display = PLAIN) -> None:
    out = console()
    where = f"context {doc['context']!r}" if doc["context"] is not None else "every scope"
    line(out, Text(f"{plural(len(doc['changes']), 'belief change')} from {doc['from']} to "
                   f"{doc['to']}, {where}", style="bold"))
    for change in doc["changes"]:
        line(out, "")
        _print_change(out, change, display)
        if change["causes"]:
            print_table(out, ["SEQ", "AT", "OP", "ID", "ACTOR", "BATCH", "REASON"],
                        [[str(c["seq"]), c["at"], c["op"], cell(c["memory_id"]), cell(c["actor"]),
                          cell(c["batch"] or ""), cell(c["reason"] or "")] for c in change["causes"]],
                        display=display)
        else:
            line(out, Text("  no event in the window: valid or known time passed a boundary",
                           style="dim"))
        if change["causes_truncated"]:
            side = change["after"] or change["before"]
            hint = Text(f"  more causes further up are not listed ({TRUNCATED_CAUSES}): "
                        "`inspector lineage STORE ", style="dim")
            hint.append_text(safe(side["memory_id"], one_line=True, edges=True))
            hint.append("` walks them", style="dim")
            line(out, hint)
    if doc["erased"]:
        note = Text(f"{plural(doc['erased'], 'entry', 'entries')} erased in this window "
                    f"(certificate{'s' if len(doc['certificates']) != 1 else ''} ", style="bold")
        note.append_text(cell(", ".join(doc["certificates"])))
        note.append("): erasure takes an entry out of every time, so what it held is on neither "
                    "side of this diff", style="bold")
        line(out, "")
        line(out, note)
    line(out, Text(f"— {doc['rule']}", style="dim"))


def print_certificate(doc: dict, display: Display = PLAIN) -> None:
    out, cert = console(), doc["certificate"]
    if doc["dry_run"]:
        line(out, Text("erasure plan (dry run: nothing written)", style="bold"))
    else:
        line(out, Text(f"erased; certificate {cert['id']} written to certificates/{cert['id']}.json",
                       style="bold"))
    counts = ", ".join(f"{k} {v}" for k, v in cert["counts"].items())
    line(out, f"  counts         {counts}")
    for label, key in (("erased", "erased_ids"), ("retained", "retained_ids")):
        line(out, f"  {label:<15}", cell(", ".join(cert[key]) or "(none)"))
    seqs = cert["redacted_seqs"]
    more = f" and {len(seqs) - SEQS_NAMED} more (the certificate lists them)" \
        if len(seqs) > SEQS_NAMED else ""
    line(out, f"  redacted seqs  {', '.join(map(str, seqs[:SEQS_NAMED])) or '(none)'}{more}")
    line(out, f"  head before    {cert['head_before']}")
    if cert["head_after"]:
        line(out, f"  head after     {cert['head_after']}")


SEQS_NAMED = 20     # the seqs an erasure redacted, named on screen (the certificate has them all)


def print_findings(doc: dict, display: Display = PLAIN) -> None:
    out = console()
    rows = [[Text(f["severity"], style=SEVERITY_STYLE[f["severity"]]), Text(f["rule"]),
             cell(f["memory_id"]), cell(f["message"])] for f in doc["findings"]]
    print_table(out, ["SEVERITY", "RULE", "ID", "MESSAGE"], rows, display=display)
    line(out, Text(plural(len(rows), "finding"), style="dim"))


def print_report(doc: dict, in_reach: bool, display: Display = PLAIN) -> None:
    out = console()
    line(out, "report written: ", cell(doc["path"]))
    if not in_reach:
        say(f"note: {doc['path']} is outside the store's reports/ directory: erasure will not "
            "find or delete it; keep it as carefully as the store")
