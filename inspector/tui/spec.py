"""A screen is one declaration: its name, label and place in the tab bar (which gives its digit
key), the table its rows page from and the statements that rebuild it, whether the tab shows
a count, and the curation actions it offers. The app, the mode bar, the palette, the view
rebuild, the counts and the paging all read these; a new screen is one module under
screens/ (its class decorated with `screen(ScreenSpec(...))`) plus its SQL in queries/tui.sql.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..store.beliefs import Shift


@dataclass(frozen=True)
class ScreenSpec:
    name: str                             # the mode name
    label: str                            # its tab's label
    order: int                            # its place in the tab bar; the digit that opens it
    table: str | None = None              # the vpos-numbered table (or view) its rows page from
    rows: tuple[str, ...] = ()            # statements that rebuild `table` when the view changes
    scoped_rows: tuple[str, ...] | None = None   # instead of `rows` under --scope (None: same)
    patch_rows: tuple[str | Shift, ...] | None = None   # instead of `rows` after a belief
                                          # patch, which changed only the focus keys' rows
                                          # (None: `rows`); a Shift moves the other keys' rows
    count: bool = False                   # the tab shows how many rows `table` holds
    actions: tuple[str, ...] = ()         # registry actions offered here
    visible: str = "tui_visible"          # statement: which of $ids the table shows ($table)
    hint: str = ""                        # one line under the tabs: what the screen is for
    empty: str = ""                       # what its empty table says (what the screen is for)
    short: str = ""                       # its tab's label when the terminal is narrow
    view_time: bool = False               # its rows follow the as-of and valid-at times (else:
                                          # the store now, which the header then says)

    def rebuild_statements(self, scoped: bool) -> tuple[str, ...]:
        return self.scoped_rows if scoped and self.scoped_rows is not None else self.rows

    def patch_statements(self, scoped: bool) -> tuple[str | Shift, ...]:
        return self.patch_rows if self.patch_rows is not None else self.rebuild_statements(scoped)


@dataclass
class Status:
    """What the header and the mode bar show; the app replaces it whole on each change."""

    path: str = ""
    scope: str | None = None
    read_only: bool = False
    loading: str | None = None
    loading_for: int = 0                  # whole seconds the loading has taken, once it is 2 or more
    warning: str | None = None
    events: int = 0
    entries: int = 0
    head: str | None = None
    chain: dict | None = None
    verifying: bool = False
    live_recent: bool = False
    context: str | None = None            # the Beliefs view's context (None: each scope)
    as_of: str | None = None
    valid_at: str | None = None
    log_problem: str | None = None        # the log shrank or was replaced under a seq we saw
    live_error: str | None = None         # appended lines that could not be loaded
    counts: dict[str, int] = field(default_factory=dict)   # screen name -> rows in its table
    # screens whose count is of an older read of the log (the Findings' last scan, when events
    # came since): the tab reads "(2, stale)", "(2?)" where it is short
    stale: frozenset[str] = frozenset()
    # screen name -> rows its table shows while a narrowing (F, the Overview's) hides others:
    # the tab reads "(1 of 5)", not the 5 it holds
    narrowed: dict[str, int] = field(default_factory=dict)
