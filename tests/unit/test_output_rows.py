"""print_table draws its rows itself (output.table_rows) instead of through Rich's Table: the
output must be what Rich's Table draws with the same column widths, character for character
and style for style, on a terminal and off one."""

from __future__ import annotations

import io
import random
import re

import pytest
from rich.console import Console
from rich.table import Table

from inspector.cli import output
from inspector.present.text import safe

ALPHABET = "abcXYZ 01é中文😀\u200b-_/…\u0301\u200d👩‍💻ｱ\u3000\x1b[31m\u202e\t"
STYLES = ["bold", "red", "dim", "bold yellow", "italic"]


def _console(width: int, terminal: bool) -> Console:
    return Console(file=io.StringIO(), markup=False, emoji=False, highlight=False, width=width,
                   soft_wrap=False, force_terminal=terminal,
                   color_system="truecolor" if terminal else None)


def _rich(out: Console, names, cells, widths, title) -> None:
    """The drawing print_table did before: every row through Rich's Table."""
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False,
                  header_style="bold", box=None, expand=False, padding=(0, output.GAP // 2))
    for name, width in zip(names, widths):
        table.add_column(name, overflow="ellipsis", no_wrap=True, width=width)
    for row in cells:
        table.add_row(*row)
    out.print(table, crop=False)


def _styled_chars(text: str) -> list[tuple[str, str]]:
    """Each character with the SGR style in force (Rich may split one style into several
    escape runs: the same look, other bytes)."""
    out, style = [], ""
    for m in re.finditer(r"\x1b\[([0-9;]*)m|(.)", text, re.S):
        if m.group(2) is not None:
            out.append((m.group(2), style))
        else:
            style = "" if m.group(1) in ("0", "") else m.group(1)
    return out


def _cell(rng: random.Random):
    text = safe("".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40))), one_line=True)
    if text.plain and rng.random() < 0.3:
        text.stylize(rng.choice(STYLES), rng.randint(0, len(text.plain) - 1), len(text.plain))
    if rng.random() < 0.2:
        text.stylize("bold red")
    return text


@pytest.mark.parametrize("seed", range(4))
def test_the_rows_are_what_richs_table_draws(seed):
    rng = random.Random(seed)
    for _ in range(500):
        columns = rng.randint(1, 6)
        names = [rng.choice(["ID", "VALUE", "REASON", "SEQ", "A VERY LONG HEADER", "X"])
                 for _ in range(columns)]
        cells = [[_cell(rng) for _ in range(columns)] for _ in range(rng.randint(0, 6))]
        widths = [rng.randint(1, 30) for _ in range(columns)]
        title = rng.choice([None, "history", "rivals (in its own scope, now)", "long title " * 9])
        terminal = rng.random() < 0.5
        need = sum(widths) + output.GAP * (columns - 1)
        width = rng.randint(need, need + 30)
        old, new = _console(width, terminal), _console(width, terminal)
        _rich(old, names, cells, widths, title)
        output.draw_table(new, names, cells, widths, title)
        if terminal:
            assert _styled_chars(new.file.getvalue()) == _styled_chars(old.file.getvalue())
        else:
            assert new.file.getvalue() == old.file.getvalue()


def test_print_table_cuts_values_to_the_terminal_and_keeps_ids_whole():
    out = _console(30, False)
    output.print_table(out, ["ID", "VALUE", "REASON"],
                       [["M1", safe("a value far too long to fit in thirty columns", one_line=True),
                         "belief"],
                        ["mem-22", "short", "out_of_scope"]],
                       title="rivals")
    assert out.file.getvalue().splitlines() == [
        "rivals                        ",
        "ID      VALUE       REASON    ",
        "M1      a value f…  belief    ",
        "mem-22  short       out_of_sc…",
    ]
