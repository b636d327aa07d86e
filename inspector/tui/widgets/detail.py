"""The detail pane: one entry, why it is (or is not) the belief, its rivals, its history,
what it rests on (as a tree) and what rests on it. Enter on a rival or a node jumps to it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static, Tree
from textual.widgets.option_list import Option

from ..session import Detail
from ..text import safe, safe_json

FIELDS = ("kind", "status", "held_reason", "source", "authority", "confidence", "scope", "subject",
          "observed_at", "valid_from", "valid_to", "expires_at", "context", "sensitivity",
          "retention", "layer", "tags")


def value_text(value, max_chars: int | None = None) -> Text:
    if isinstance(value, str):
        return safe(value, one_line=True, max_chars=max_chars)
    return safe_json(value, max_chars=max_chars)


def entry_label(memory_id: str, row: dict | None, note: str = "") -> Text:
    label = safe(memory_id, one_line=True, style="bold")
    if row:
        label.append("  ")
        label.append_text(safe(f"{row['entity']} · {row['attribute']}", one_line=True, max_chars=40))
        label.append(" = ")
        label.append_text(value_text(_json(row["value"]), 30))
        label.append(f"  {row['kind']}", style="dim")
        if row["status"] != "active":
            label.append(f" {row['status']}", style="yellow")
    if note:
        label.append(f"  {note}", style="bold red")
    return label


def _one_line(text: Text) -> Text:
    text.no_wrap, text.overflow = True, "ellipsis"
    return text


def _json(text: str):
    import json
    return json.loads(text)


class DetailPane(VerticalScroll):
    """Shows a Detail; posts Jump when the operator picks a rival or a lineage node."""

    class Jump(Message):
        def __init__(self, memory_id: str) -> None:
            super().__init__()
            self.memory_id = memory_id

    def compose(self) -> ComposeResult:
        yield Static(id="detail-title")
        yield Static(id="detail-fields")
        yield Static(id="detail-why")
        yield Static(Text("rivals", style="bold"), classes="detail-heading")
        yield OptionList(id="detail-rivals")
        yield Static(Text("rests on", style="bold"), id="detail-tree-heading", classes="detail-heading")
        yield Tree(Text("rests on"), id="detail-tree")
        yield Static(Text("rests on it", style="bold"), classes="detail-heading")
        yield OptionList(id="detail-dependents")
        yield Static(Text("history", style="bold"), classes="detail-heading")
        yield Static(id="detail-history")

    def clear(self, message: str = "") -> None:
        self.query_one("#detail-title", Static).update(Text(message, style="dim"), layout=False)
        for name in ("#detail-fields", "#detail-why", "#detail-history"):
            self.query_one(name, Static).update("", layout=False)
        self.query_one("#detail-rivals", OptionList).clear_options()
        self.query_one("#detail-dependents", OptionList).clear_options()
        self.query_one("#detail-tree", Tree).clear()

    def show(self, detail: Detail) -> None:
        entry = detail.entry
        title = Text()
        if entry.get("status") == "erased":
            title.append_text(safe(detail.memory_id, one_line=True, style="bold"))
            title.append(f"  erased (certificate {entry.get('certificate')})", style="bold red")
        else:
            title.append_text(safe(f"{entry['entity']} · {entry['attribute']}", one_line=True, style="bold"))
            title.append(" = ")
            title.append_text(value_text(entry.get("value")))
        self.query_one("#detail-title", Static).update(title)
        self.query_one("#detail-fields", Static).update(self._fields(detail))
        self.query_one("#detail-why", Static).update(self._why(detail))
        self._rivals(detail)
        self._tree(detail)
        self._dependents(detail)
        self.query_one("#detail-history", Static).update(self._history(detail))

    def _fields(self, detail: Detail) -> Text:
        out = Text()
        out.append_text(safe(detail.memory_id, one_line=True, style="bold"))
        for name in FIELDS:
            value = detail.entry.get(name)
            if value in (None, "", []):
                continue
            out.append(f"\n{name:<12} ", style="dim")
            out.append_text(value_text(value, 400))
            if name == "authority" and detail.authority not in (None, value):
                out.append(f"  (effective {detail.authority}: no stronger than its support)", style="yellow")
        return out

    def _why(self, detail: Detail) -> Text:
        if detail.entry.get("status") == "erased":
            return Text("")
        out = Text()
        if detail.reason == "belief":
            out.append("why: ", style="bold")
            out.append(detail.why)
        else:
            out.append("not the belief here: ", style="bold yellow")
            out.append_text(safe(detail.reason or "", one_line=True))
            if detail.belief:
                out.append(" — the belief is ")
                out.append_text(safe(detail.belief, one_line=True, style="bold"))
        out.append(f"\nin context ", style="dim")
        out.append_text(safe(detail.context or '""', one_line=True))
        n = len(detail.sources)
        out.append(f"\nindependent sources: {n} ", style="bold")
        out.append_text(safe(", ".join(detail.sources), one_line=True, max_chars=80))
        if n == 1 and detail.ancestors > 1:
            out.append("  ⚠ everything it rests on traces to one source", style="bold yellow")
        if detail.dangling:
            out.append("\ncites missing ids: ", style="bold red")
            out.append_text(safe(", ".join(detail.dangling), one_line=True, max_chars=80))
        if detail.cycles:
            out.append("\ncycle: ", style="bold red")
            out.append_text(safe(" → ".join(detail.cycles[0]), one_line=True, max_chars=80))
        return out

    def _rivals(self, detail: Detail) -> None:
        options = self.query_one("#detail-rivals", OptionList)
        options.clear_options()
        for rival in detail.rivals:
            label = safe(rival["memory_id"], one_line=True, style="bold")
            label.append(f"  {rival['reason']}  ", style="yellow" if rival["reason"] == "belief" else "")
            label.append_text(value_text(rival["value"], 40))
            options.add_option(Option(_one_line(label), id=rival["memory_id"]))
        if not detail.rivals:
            options.add_option(Option(Text("(none)", style="dim"), disabled=True))

    def _tree(self, detail: Detail) -> None:
        tree = self.query_one("#detail-tree", Tree)
        tree.clear()
        tree.root.data = detail.memory_id

        def add(parent, nodes):
            for node in nodes:
                note = "cycle" if node["cycle"] else ("missing" if node["row"] is None else "")
                child = parent.add(entry_label(node["id"], node["row"], note), data=node["id"],
                                   expand=True, allow_expand=bool(node["children"]))
                add(child, node["children"])
        add(tree.root, detail.tree)
        tree.root.expand()
        if not detail.tree:
            tree.root.add_leaf(Text("(nothing: it cites nothing)", style="dim"))

    def _dependents(self, detail: Detail) -> None:
        options = self.query_one("#detail-dependents", OptionList)
        options.clear_options()
        for dependent in detail.descendants:
            options.add_option(Option(_one_line(entry_label(dependent["id"], dependent["row"])),
                                      id=dependent["id"]))
        if not detail.descendants:
            options.add_option(Option(Text("(none)", style="dim"), disabled=True))

    def _history(self, detail: Detail) -> Text:
        out = Text()
        for event in detail.events[-50:]:
            out.append(f"{event['seq']:>7} {event['at'][:19]} ", style="dim")
            out.append(f"{event['op']:<10} ", style="bold")
            out.append_text(safe(event["actor"], one_line=True, max_chars=24))
            if event["redacted"]:
                out.append("  (body erased)", style="dim")
            elif event["op"] in ("write", "update", "hold"):
                out.append("  ")
                out.append_text(value_text(event["value"], 40))
            if event["reason"]:
                out.append("  ")
                out.append_text(safe(event["reason"], one_line=True, max_chars=60, style="italic"))
            out.append("\n")
        return out

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Jump(event.option.id))

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        if event.node.data and event.node is not event.node.tree.root:
            self.post_message(self.Jump(event.node.data))
