"""`?`: every key of the screen the operator is on, read from the bindings themselves (so a key
remapped in config.toml shows as remapped), grouped by where it works; and the markers' legend."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from ...present.glyphs import MARK_LEGEND

# Bindings that only exist to make the widgets work (cursor keys inside an input and so on)
# are left out when they have no description.


def key_rows(screen: Screen) -> list[tuple[str, list[tuple[str, str]]]]:
    """(where, [(keys, what)]) for the screen's table, detail pane, the screen and the app,
    leaving out what check_action disables (read-only mode removes the curation actions)."""
    from textual.widgets import Input
    from ..widgets.charts import OverviewChart
    from ..widgets.detail import DetailPane
    from ..widgets.virtual_table import VirtualTable
    app = screen.app
    groups = []
    tables = [t for t in screen.query(VirtualTable) if t.display]
    panes = list(screen.query(DetailPane))
    charts = list(screen.query(OverviewChart))
    # escape leaves a field, or a narrowing of the table: said only where there is either
    leaves = bool(tables) or bool(screen.query(Input))
    for where, node in ((f"{screen.SPEC.label} screen", screen),
                        ("detail pane (l or tab to focus)", panes[0] if panes else None),
                        ("table", tables[0] if tables else None),
                        ("chart", charts[0] if charts else None), ("everywhere", app)):
        if node is None:
            continue
        rows: dict[str, list[str]] = {}
        for keys, what in getattr(node, "HELP_KEYS", ()):    # keys a widget reads itself
            rows.setdefault(what, []).append(keys)
        bindings = node._bindings.copy()
        inherited = _plumbing(node)
        if app._keymap:
            bindings.apply_keymap(app._keymap)
        for key, binding in sorted(bindings, key=lambda kb: not kb[1].action.startswith("act(")):
            if not binding.description or binding.system or (key, binding.action) in inherited:
                continue
            if node.check_action(action_name(binding), action_params(binding)) is False:
                continue
            if action_name(binding) == "leave_input" and not leaves:
                continue
            rows.setdefault(binding.description, []).append(app.get_key_display(binding))
        if rows:
            groups.append((where, [(" ".join(dict.fromkeys(keys)), what) for what, keys in rows.items()]))
    return groups


def has_markers(screen: Screen) -> bool:
    """Whether a table of the screen shows markers (its MRK or MARKER column)."""
    from ..widgets.virtual_table import VirtualTable
    return any(c.key in ("marks", "marker") for t in screen.query(VirtualTable) for c in t.columns)


def _plumbing(node) -> set[tuple[str, str]]:
    """Bindings a widget inherits from Textual's own classes (scrolling and the like)."""
    from textual.scroll_view import ScrollView
    from textual.widget import Widget
    base = next(c for c in (ScrollView, Screen, Widget) if isinstance(node, c)) \
        if isinstance(node, Widget) else None
    merged = base._merge_bindings() if base is not None else None
    return {(key, b.action) for key, b in merged} if merged else set()


def own_actions(node) -> set[str]:
    """The actions the inspector's own classes bind on `node` (not those it inherits from
    Textual's widgets: an Input's cursor and editing keys, a scroll view's scrolling)."""
    return {binding.action for cls in type(node).__mro__ if cls.__module__.startswith("inspector.")
            for binding in cls.__dict__.get("BINDINGS", ()) if isinstance(binding, Binding)}


def action_name(binding: Binding) -> str:
    """The action a binding runs, without its arguments or namespace: "act", "sort"."""
    return binding.action.partition("(")[0].removeprefix("app.")


def action_params(binding: Binding) -> tuple:
    """The arguments of a binding's action, as check_action receives them."""
    _, _, rest = binding.action.partition("(")
    return tuple(a.strip("'\" ") for a in rest.rstrip(")").split(",") if a)


ACTIONS_ASK = ("Every action opens its plan and asks for a reason; nothing is written before "
               "you confirm.")
READ_ONLY = ("The store is open read-only: the actions that write, and the marks that choose "
             "what they act on, are not offered (open it without --read-only to act).")


class HelpScreen(ModalScreen[None]):
    """The keys of one screen; escape, q or ? closes."""

    BINDINGS = [Binding("escape,question_mark,q", "dismiss(None)", "close")]

    def __init__(self, screen: Screen):
        super().__init__()
        self.groups = key_rows(screen)
        self.label = screen.SPEC.label
        self.read_only = screen.app.session.read_only
        self.legend = has_markers(screen)

    def compose(self) -> ComposeResult:
        table = Table(box=None, pad_edge=False, show_header=False, expand=True)
        table.add_column(no_wrap=True, style="bold", min_width=14)
        table.add_column(ratio=1)
        for where, rows in self.groups:
            table.add_row(Text(where, style="bold #ffa62b"), Text(""))
            for keys, what in rows:
                table.add_row(Text(keys), Text(what))
            table.add_row(Text(""), Text(""))
        legend = Text("markers (MRK): ", style="bold")
        legend.append(MARK_LEGEND)
        with Vertical(id="help-dialog"):
            yield Static(Text(f"Keys of the {self.label} screen", style="bold"))
            if self.legend:
                yield Static(legend)
            with VerticalScroll(id="help-body"):
                yield Static(table, id="help-keys")
                yield Static(Text(f"{READ_ONLY if self.read_only else ACTIONS_ASK} Keys can be "
                                  "remapped in ~/.config/inspector/config.toml by the ids ctrl+p "
                                  "lists.", style="dim"))
            yield Static(Text("↑ ↓ pgup pgdn scroll · escape, q or ? closes", style="dim"))

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()
