"""The detail pane: one entry, why it is (or is not) the belief, its rivals, its history,
what it rests on (as a tree) and what rests on it.

It is one line-rendering widget: showing another entry replaces its lines and repaints it,
without laying out the screen again (a pane of many widgets cost ~60 ms of layout per
cursor move). Rival, lineage and dependent lines are jump targets: with the pane focused,
up/down move among them and enter jumps (the screen's jump_to).
"""

from __future__ import annotations

import json

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..entry_detail import DEPENDENTS, HISTORY, TREE_NODES, Detail
from ...present.mask import mask_value
from ...present.text import safe, safe_value as value_text
from ...store.diff import TRUNCATED_CAUSES

FIELDS = ("kind", "status", "held_reason", "source", "authority", "confidence", "scope", "subject",
          "observed_at", "valid_from", "valid_to", "expires_at", "context", "sensitivity",
          "retention", "layer", "tags")
HEADING = Style(bold=True, color="#ffa62b")
TREE_INDENT = 8              # the tree's lines are indented this many levels at most
CAUSE = "bold reverse"       # an event that made the change the diff view opened the entry for


def _heading(label: str) -> Text:
    text = Text()
    text.append(label, style=HEADING)
    return text


def _indent(prefix: str) -> str:
    """A tree line's indentation, at most TREE_INDENT levels wide: deeper, the level's number
    and the last levels' rails (a chain 15 deep was indented past the pane's width, its ids
    cut to "…", and enter jumped to an entry the line did not name: term86)."""
    levels = len(prefix) // 3
    if levels <= TREE_INDENT:
        return prefix
    kept = prefix[-3 * (TREE_INDENT - 4):]
    return f"depth {levels + 1}".ljust(11) + " " + kept


def _cut(what: str, memory_id: str, command: str = "lineage STORE", flag: str = "") -> Text:
    """The line that says a list of the pane stops short, and the command that lists it whole."""
    line = Text(f"({what}: ", style="bold yellow")
    line.append(f"inspector {command} {flag}")
    line.append_text(safe(memory_id, one_line=True, edges=True))
    line.append(" lists every one)")
    return line


def entry_label(memory_id: str, row: dict | None, note: str = "") -> Text:
    label = safe(memory_id, one_line=True, edges=True, style="bold")
    if row:
        label.append("  ")
        label.append_text(safe(f"{row['entity']} · {row['attribute']}", one_line=True, max_chars=40))
        label.append(" = ")
        label.append_text(value_text(json.loads(row["value"]) if row["value"] is not None else None, 30))
        label.append(f"  {row['kind']}", style="dim")
        if row["status"] != "active":
            label.append(f" {row['status']}", style="yellow")
    if note:
        label.append(f"  {note}", style="bold red")
    return label


class DetailPane(ScrollView, can_focus=True):
    """Shows a Detail as lines; calls its screen's jump_to when the operator picks a rival or a
    lineage node."""

    BINDINGS = [Binding("up,k", "select(-1)", "previous", show=False),
                Binding("down,j", "select(1)", "next", show=False),
                Binding("enter", "jump", "jump to it")]
    COMPONENT_CLASSES = {"detail-pane--selected"}
    DEFAULT_CSS = """
    DetailPane { background: $surface; scrollbar-gutter: stable; }
    DetailPane > .detail-pane--selected { background: $accent 40%; }
    DetailPane:focus > .detail-pane--selected { background: $accent; }
    """

    def __init__(self, **kw):
        super().__init__(**kw)
        self.expected: str | None = None     # the entry asked for (shown, or on its way)
        self.revealed: str | None = None     # the entry whose secret value is shown whole
        self._blocks: list[tuple[Text, str | None]] = []   # (text, jump target)
        self._lines: list[tuple[list[Segment], str | None, int]] = []  # wrapped: segments, target, block
        self._selected: int | None = None                   # index into _blocks
        self._width = 0
        self._wrap_console: Console | None = None
        self.detail: Detail | None = None

    # -- content ------------------------------------------------------------------------------

    def clear(self, message: str = "") -> None:
        """Show nothing but `message`; a detail still on its way is not shown."""
        self.detail = self.expected = None
        self._set([(Text(message, style="dim"), None)])

    def expect(self, memory_id: str) -> None:
        """`memory_id` is asked for: actions act on it, and an older answer is not shown."""
        self.expected = memory_id

    @property
    def target(self) -> str | None:
        """The entry the pane shows (or is about to): what actions act on."""
        return self.expected or (self.detail.memory_id if self.detail else None)

    def show(self, detail: Detail) -> None:
        if self.expected is not None and detail.memory_id != self.expected:
            return
        if detail.memory_id != self.revealed:
            self.revealed = None
        self.detail, self.expected = detail, detail.memory_id
        self._set(self._build(detail))

    def show_lineage(self, detail: Detail) -> None:
        if self.detail is detail:
            self._set(self._build(detail), keep=True)

    def reveal(self) -> bool:
        """Show (or hide again) the secret value of the entry shown; False if it has none."""
        d = self.detail
        if d is None or not (d.secret or any(e.get("secret") for e in d.events)):
            return False
        self.revealed = None if self.revealed == d.memory_id else d.memory_id
        self._set(self._build(d), keep=True)
        return True

    def _shown(self, d: Detail, value, secret: bool):
        return mask_value(value) if secret and self.revealed != d.memory_id else value

    def _set(self, blocks: list[tuple[Text, str | None]], keep: bool = False) -> None:
        target = self._blocks[self._selected][1] if keep and self._selected is not None else None
        self._blocks = blocks
        targets = [i for i, (_, t) in enumerate(blocks) if t]
        self._selected = next((i for i in targets if blocks[i][1] == target), None) if target else None
        self._wrap()
        if not keep:
            self.scroll_to(y=0, animate=False)
        self.refresh()

    def _wrap(self) -> None:
        width = max(10, self.scrollable_content_region.width or self.size.width or 50)
        if self._wrap_console is None or self._wrap_console.width != width:
            self._wrap_console = Console(width=width, color_system="truecolor", legacy_windows=False,
                                    force_terminal=True)
        console = self._wrap_console
        self._lines = []
        for index, (text, target) in enumerate(self._blocks):
            if text.no_wrap:        # tree lines keep their indentation: cut, never re-wrapped
                cut = text.copy()
                cut.truncate(width, overflow="ellipsis")
                wrapped = [cut]
            else:
                wrapped = text.wrap(console, width, overflow="fold")
            for line in wrapped:
                self._lines.append((list(line.render(console)), target, index))
        self._width = width
        # Rounded up, so that moving between entries seldom changes the virtual size (a change
        # lays the screen out again).
        size = Size(width, -(-len(self._lines) // 32) * 32)
        if size != self.virtual_size:
            self.virtual_size = size

    def on_resize(self) -> None:
        if self._blocks:
            self._wrap()
            if self._selected is not None:
                # Wrapped to another width, the selected node's lines moved: kept in view, or
                # enter jumped to a node the pane did not show (term86: 200x50 to 80x24)
                self.call_after_refresh(self._scroll_to_selected)
            self.refresh()

    # -- the lines of one entry ------------------------------------------------------------------

    def _build(self, d: Detail) -> list[tuple[Text, str | None]]:
        if d.entry.get("status") == "erased":
            return [(self._title(d), None),
                    (Text("Erased: nothing about it is kept but its id and the certificate.",
                          style="dim"), None)]
        blocks: list[tuple[Text, str | None]] = [(self._title(d), None)]
        if d.change:
            blocks += self._causes(d)
            # Below, the entry as the store holds it now: the row above is the window's change.
            blocks.append((Text("the entry now (the window's change is above):", style="bold"), None))
        elif d.as_of:
            blocks += self._as_of(d)
        if d.held_why:                    # a reviewer's first question: what did the gate see
            held = Text("held because: ", style="bold yellow")
            held.append_text(safe(d.held_why, one_line=True, max_chars=300, style="yellow"))
            blocks.append((held, None))
        blocks += [(self._fields(d), None), (self._why(d), None)]
        blocks.append((_heading("rivals"), None))
        for rival in d.rivals:
            label = safe(rival["memory_id"], one_line=True, edges=True, style="bold")
            label.append(f"  {rival['reason']}  ", style="yellow" if rival["reason"] == "belief" else "")
            label.append_text(value_text(rival["value"], 40))
            blocks.append((label, rival["memory_id"]))
        if not d.rivals:
            blocks.append((Text("(none)", style="dim"), None))
        blocks.append((_heading("rests on"), None))
        blocks += self._tree(d)
        blocks.append((_heading("rests on it"), None))
        blocks += self._dependents(d)
        blocks.append((_heading("history"), None))
        blocks += [(line, None) for line in self._history(d)]
        return blocks

    def _causes(self, d: Detail) -> list[tuple[Text, str | None]]:
        """The diff view's change and the events that made it, each a jump to its entry."""
        heading = _heading("what made the change")
        heading.append("  ")
        heading.append_text(safe(d.change, one_line=True, max_chars=200))
        blocks: list[tuple[Text, str | None]] = [(heading, None)]
        for cause in d.causes:
            line = Text("▶ ", style=CAUSE)
            line.append(f"{cause['seq']:>7} {cause['at'][:19]} ", style=CAUSE)
            line.append(f"{cause['op']:<10} ", style=CAUSE)
            line.append_text(safe(cause["memory_id"], one_line=True, edges=True, style="bold"))
            line.append("  ")
            line.append_text(safe(cause["actor"], one_line=True, max_chars=24))
            if cause.get("reason"):
                line.append("  ")
                line.append_text(safe(cause["reason"], one_line=True, max_chars=60, style="italic"))
            blocks.append((line, cause["memory_id"]))
        if d.causes_truncated:
            blocks.append((Text(f"(more events further up, not listed: {TRUNCATED_CAUSES})",
                                style="dim"), None))
        if not d.causes:
            blocks.append((Text("(no event in the window: a time the entries name was crossed)",
                                style="dim"), None))
        return blocks

    def focus_causes(self) -> None:
        """Select the first cause of the change (the diff view's enter) and focus."""
        targets = self._targets()
        heading = next((i for i, (t, _) in enumerate(self._blocks)
                        if t.plain.startswith("what made the change")), None)
        self._selected = next((i for i in targets if heading is not None and i > heading), None)
        self._scroll_to_selected()
        self.focus()

    def _as_of(self, d: Detail) -> list[tuple[Text, str | None]]:
        """The view is as of a time: the entry as it stood then (its last event at or before
        it), above the entry as the store holds it now (helper-62: the row said 1240 as of
        04:07, the pane 180 and a quarantine that came later)."""
        line = Text(f"as of {d.as_of}: ", style="bold cyan")
        if d.then is None:
            line.append("not written yet", style="cyan")
        else:
            line.append_text(value_text(self._shown(d, d.then["value"], d.then["secret"]), 200))
            line.append(f" · {d.then['status']} (event {d.then['seq']}, {d.then['at']})", style="cyan")
        return [(line, None), (Text("the entry now (the row is as of the view's time):",
                                     style="bold"), None)]

    def _title(self, d: Detail) -> Text:
        entry, title = d.entry, Text()
        if entry.get("status") == "erased":
            title.append_text(safe(d.memory_id, one_line=True, edges=True, style="bold"))
            title.append(f"  erased (certificate {entry.get('certificate')})", style="bold red")
            return title
        title.append_text(safe(f"{entry['entity']} · {entry['attribute']}", one_line=True, style="bold"))
        title.append(" = ")
        if d.as_of and d.then is not None:        # the row's value: as of the view's time
            title.append_text(value_text(self._shown(d, d.then["value"], d.then["secret"])))
        else:
            title.append_text(value_text(self._shown(d, entry.get("value"), d.secret)))
        if d.secret:
            if self.revealed == d.memory_id:
                title.append("  secret, shown (ctrl+r hides)", style="bold red")
            else:
                title.append("  secret, masked (ctrl+r reveals)", style="dim")
        return title

    def _fields(self, d: Detail) -> Text:
        out = safe(d.memory_id, one_line=True, edges=True, style="bold")
        for name in FIELDS:
            value = d.entry.get(name)
            if value in (None, "", []):
                continue
            out.append(f"\n{name:<12} ", style="dim")
            out.append_text(value_text(value, 400))

            if name == "authority" and d.authority not in (None, value):
                out.append(f"  (effective {d.authority}: no stronger than its support)", style="yellow")
        return out

    def _why(self, d: Detail) -> Text:
        out = Text()
        if d.entry.get("status") == "erased":
            return out

        if d.reason == "belief":
            out.append("why: ", style="bold")
            out.append(d.why)
        else:
            out.append("not the belief here: ", style="bold yellow")
            out.append_text(safe(d.reason or "", one_line=True))
            if d.belief:
                out.append(" — the belief is ")
                out.append_text(safe(d.belief, one_line=True, style="bold"))
        out.append("\nin context ", style="dim")
        out.append_text(safe(d.context or '""', one_line=True))
        if d.valid_at:
            # the rivals' reasons are of that time (H5 "outranked", not "not_yet_valid" as now)
            out.append(f", valid at {d.valid_at}", style="bold cyan")
        own = d.entry.get("scope") or ""
        if own != (d.context or ""):        # a broader scope's entry, seen from a narrower one
            out.append(" · the entry's own scope ", style="dim")
            out.append_text(safe(own or '""', one_line=True))
        if not d.lineage_loaded:
            out.append("\nlineage …", style="dim")
            return out
        n = len(d.sources)
        out.append(f"\nindependent sources: {n} ", style="bold")
        out.append_text(safe(", ".join(d.sources), one_line=True, max_chars=80, edges=True))
        if n == 1 and d.ancestors > 1:
            out.append("  ⚠ everything it rests on traces to one source", style="bold yellow")
        if d.dangling:
            out.append("\ncites missing ids: ", style="bold red")
            out.append_text(safe(", ".join(d.dangling), one_line=True, max_chars=80))
        if d.cycles:
            out.append("\ncycle: ", style="bold red")
            out.append_text(safe(" → ".join(d.cycles[0]), one_line=True, max_chars=80))
        return out

    def _tree(self, d: Detail) -> list[tuple[Text, str | None]]:
        if not d.lineage_loaded:
            return [(Text("…", style="dim"), None)]
        if not d.tree:
            return [(Text("(nothing: it cites nothing)", style="dim"), None)]
        lines: list[tuple[Text, str | None]] = []

        def walk(nodes, prefix: str) -> None:
            for n, node in enumerate(nodes):
                last = n == len(nodes) - 1
                note = "cycle" if node["cycle"] else ("missing" if node["row"] is None else "")
                line = Text(_indent(prefix) + ("└─ " if last else "├─ "), style="dim")
                line.append_text(entry_label(node["id"], node["row"], note))
                line.no_wrap, line.overflow = True, "ellipsis"
                lines.append((line, None if node["row"] is None else node["id"]))
                walk(node["children"], prefix + ("   " if last else "│  "))
        walk(d.tree, "")
        if d.tree_cut:
            # said, or the last node drawn (└─) read as the last it cites (term86)
            lines.append((_cut(f"the tree stops at {TREE_NODES} nodes; it rests on {d.ancestors} "
                               "entries in all", d.memory_id), None))
        return lines

    def _dependents(self, d: Detail) -> list[tuple[Text, str | None]]:
        if not d.lineage_loaded:
            return [(Text("…", style="dim"), None)]
        if not d.descendants:
            return [(Text("(none)", style="dim"), None)]
        out = []
        for dependent in d.descendants:
            label = entry_label(dependent["id"], dependent["row"])
            label.no_wrap, label.overflow = True, "ellipsis"
            out.append((label, dependent["id"]))
        if d.dependents > len(d.descendants):
            out.append((_cut(f"the first {DEPENDENTS} of {d.dependents}", d.memory_id), None))
        return out

    def _history(self, d: Detail) -> list[Text]:
        lines = []
        causes = {c["seq"] for c in d.causes}
        if len(d.events) > HISTORY:
            lines.append(_cut(f"the last {HISTORY} of {len(d.events)} events",
                              d.memory_id, "audit STORE", "--log --memory "))
        for event in d.events[-HISTORY:]:
            cause = event["seq"] in causes
            out = Text(f"{event['seq']:>7} {event['at'][:19]} ", style=CAUSE if cause else "dim")
            out.append(f"{event['op']:<10} ", style="bold")
            out.append_text(safe(event["actor"], one_line=True, max_chars=24))
            if event["redacted"]:
                out.append("  (body erased)", style="dim")
            elif event["op"] in ("write", "update", "hold"):
                out.append("  ")
                out.append_text(value_text(self._shown(d, event["value"], event.get("secret", d.secret)), 40))
            if event["reason"]:
                out.append("  ")
                out.append_text(safe(event["reason"], one_line=True, max_chars=60, style="italic"))
            lines.append(out)
        return lines

    # -- rendering and selection ------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if index >= len(self._lines):
            return Strip.blank(width, self.rich_style)
        segments, target, block = self._lines[index]
        style = self.rich_style
        if self._selected is not None and block == self._selected:
            style = style + self.get_component_rich_style("detail-pane--selected")
        # The pane's style goes under each segment's own (Segment.apply_style: style first).
        return Strip(Segment.apply_style(segments, style=style)).crop_extend(0, width, style)

    def _targets(self) -> list[int]:
        return [i for i, (_, target) in enumerate(self._blocks) if target]

    def focus_lineage(self) -> None:
        """Select the first node of the lineage tree (or the first jump target) and focus."""
        targets = self._targets()
        heading = next((i for i, (t, _) in enumerate(self._blocks) if t.plain == "rests on"), 0)
        self._selected = next((i for i in targets if i > heading), targets[0] if targets else None)
        self._scroll_to_selected()
        self.focus()

    def action_select(self, step: int) -> None:
        targets = self._targets()
        if not targets:
            return
        if self._selected not in targets:
            self._selected = targets[0] if step > 0 else targets[-1]
        else:
            position = targets.index(self._selected) + step
            self._selected = targets[max(0, min(len(targets) - 1, position))]
        self._scroll_to_selected()

    def _scroll_to_selected(self) -> None:
        rows = [n for n, (_, _, block) in enumerate(self._lines) if block == self._selected]
        if rows:
            self.scroll_to_region(self.scrollable_content_region.__class__(0, rows[0], 1, len(rows)),
                                  animate=False)
        self.refresh()

    def action_jump(self) -> None:
        """The screen takes the jump now (every screen that shows a pane has jump_to), not when
        a posted message reaches it: an action key typed in the same burst as the enter
        ("enter Q") was read before such a message, and acted on the entry jumped away from
        (helper-67)."""
        if self._selected is None or not self._blocks[self._selected][1]:
            return
        self.screen.jump_to(self._blocks[self._selected][1])

    def selected_target(self) -> str | None:
        return self._blocks[self._selected][1] if self._selected is not None else None
