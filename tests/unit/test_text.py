"""The one sanitizer (inspector/tui/text.py): hostile values stay literal and inert.

Speed, measured on the dev box (100k calls, 40-char clean string):
render 0.026 s (fast path, returns the same object), safe 0.17 s;
40-char string with one ESC: render 0.16 s, safe 0.49 s.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from inspector.present.text import DANGEROUS, ELLIPSIS, ESCAPE_STYLE, decode, render, safe, safe_json

ROOT = Path(__file__).resolve().parents[2]


# The spec's list (DESIGN §9 and the sanitizer's docstring), written independently of the
# module's regex; test_the_module_escapes_exactly_the_spec_list ties the two together, so a
# code point dropped from either side fails a test.
DANGEROUS_RANGES = [
    (0x00, 0x08), (0x0B, 0x1F),          # C0 controls but tab and newline
    (0x7F, 0x9F),                        # DEL, C1
    (0xAD, 0xAD),                        # soft hyphen
    (0x061C, 0x061C),                    # Arabic letter mark (bidi)
    (0x200B, 0x200D),                    # zero-width space, non-joiner, joiner
    (0x200E, 0x200F),                    # bidi marks
    (0x2028, 0x2029),                    # line and paragraph separators
    (0x202A, 0x202E),                    # bidi embeddings and overrides
    (0x2060, 0x2064),                    # word joiner, invisible operators
    (0x2065, 0x2065),                    # (unassigned, in the format block)
    (0x2066, 0x2069),                    # bidi isolates
    (0x206A, 0x206F),                    # deprecated format characters (invisible)
    (0x034F, 0x034F),                    # combining grapheme joiner (invisible)
    (0x115F, 0x1160),                    # Hangul choseong and jungseong fillers (blank)
    (0x17B4, 0x17B5),                    # Khmer inherent vowels (invisible)
    (0x180B, 0x180D),                    # Mongolian free variation selectors (invisible)
    (0x180E, 0x180E),                    # Mongolian vowel separator (invisible)
    (0x180F, 0x180F),                    # Mongolian free variation selector four
    (0x3164, 0x3164),                    # Hangul filler (blank)
    (0xFFA0, 0xFFA0),                    # half-width Hangul filler (blank)
    (0xFE00, 0xFE0F),                    # variation selectors 1-16 (emoji smuggling)
    (0xFEFF, 0xFEFF),                    # zero-width no-break space (BOM)
    (0xFFF9, 0xFFFB),                    # interlinear annotation controls (invisible)
    (0xD800, 0xDFFF),                    # lone surrogates
    (0x1BCA0, 0x1BCA3),                  # shorthand format controls (invisible)
    (0x1D173, 0x1D17A),                  # musical format controls (invisible)
    (0x1F3FB, 0x1F3FF),                  # emoji skin-tone modifiers (width disagreement)
    (0xE0000, 0xE007F),                  # tag characters
    (0xE0100, 0xE01EF),                  # variation selectors 17-256 (emoji smuggling)
]
SPEC_DANGEROUS = frozenset(c for lo, hi in DANGEROUS_RANGES for c in range(lo, hi + 1))


ONE_LINE_BLANKS = frozenset([0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000, 0x2800])


def is_dangerous(char: str, *, one_line: bool = False, blanks: bool | None = None) -> bool:
    """Whether `render(one_line=one_line)` must escape `char`; `blanks`: the blanks one line
    escapes too (JSON text escapes newline and tab, and leaves blanks)."""
    if char in "\n\t":
        return one_line
    blanks = one_line if blanks is None else blanks
    return ord(char) in SPEC_DANGEROUS or (blanks and ord(char) in ONE_LINE_BLANKS)


def test_the_module_escapes_exactly_the_spec_list() -> None:
    every = "".join(map(chr, range(0x110000)))
    matched = {m.start() for m in re.finditer(f"[{DANGEROUS}]", every)}
    assert sorted(matched - SPEC_DANGEROUS) == [] and sorted(SPEC_DANGEROUS - matched) == []


RANGE_ENDS = sorted({code for pair in DANGEROUS_RANGES for code in pair})


@pytest.mark.parametrize("code", RANGE_ENDS, ids=lambda c: f"U+{c:04X}")
def test_each_end_of_each_range_is_escaped(code: int) -> None:
    char = chr(code)
    expected = (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code <= 0xFFFF
                else f"\\u{{{code:x}}}")
    assert render(f"a{char}b") == f"a{expected}b"
    assert decode(render(f"a{char}b")) == f"a{char}b"
    assert safe(f"a{char}b").plain == f"a{expected}b"


def test_the_invisible_characters_are_visible() -> None:
    # Soft hyphen, word joiner, the invisible operators and the BOM hide text from a reader.
    value = "pay\xadload\u2060\u2061\u2062\u2063\u2064\ufeffend"
    assert render(value) == "pay\\xadload\\u2060\\u2061\\u2062\\u2063\\u2064\\ufeffend"
    assert foreign_controls(to_terminal(safe(value))) == []


# (hostile value, exact rendered string)
HOSTILE = [
    ("[bold]x", "[bold]x"),
    ("[/]", "[/]"),
    ("[/oops]", "[/oops]"),
    ("[link=https://evil.example]x[/link]", "[link=https://evil.example]x[/link]"),
    ("[@click=app.quit]x[/]", "[@click=app.quit]x[/]"),
    (":warning:", ":warning:"),
    ("trailing\\", "trailing\\"),
    ("\x1b[2J", "\\x1b[2J"),
    ("\x1b]52;c;cHduZWQ=\x07", "\\x1b]52;c;cHduZWQ=\\x07"),
    (
        "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
        "\\x1b]8;;https://evil.example\\x1b\\click\\x1b]8;;\\x1b\\",
    ),
    ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
    ("\x9b2J", "\\x9b2J"),
    ("safe\rEVIL", "safe\\x0dEVIL"),
    ("abc\u202edcba", "abc\\u202edcba"),
    ("\x1bP1$r...\x1b\\", "\\x1bP1$r...\\x1b\\"),
]
HOSTILE_IDS = [repr(value)[:30] for value, _ in HOSTILE]

SGR = re.compile(r"\x1b\[[0-9;]*m")


def to_terminal(text: Text) -> str:
    """What Rich would write to a truecolor terminal for `text`."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=200)
    console.print(text)
    return out.getvalue()


def foreign_controls(terminal_output: str) -> list[str]:
    """Dangerous characters left once Rich's own SGR styling is removed."""
    return [c for c in SGR.sub("", terminal_output) if is_dangerous(c) or c == "\x9b"]


@pytest.mark.parametrize(("value", "expected"), HOSTILE, ids=HOSTILE_IDS)
def test_hostile_value_renders_exactly(value: str, expected: str) -> None:
    assert render(value) == expected
    assert decode(expected) == value
    assert safe(value).plain == expected


@pytest.mark.parametrize(("value", "expected"), HOSTILE, ids=HOSTILE_IDS)
def test_hostile_value_reaches_terminal_inert(value: str, expected: str) -> None:
    output = to_terminal(safe(value))
    assert foreign_controls(output) == []
    assert SGR.sub("", output) == expected + "\n"


def test_bold_markup_is_printed_literally() -> None:
    output = to_terminal(safe("[bold]x"))
    assert "[bold]x" in output
    assert "\x1b[1m" not in output


def test_terminal_check_catches_an_unsanitized_value() -> None:
    # The check above must be able to fail: Rich alone passes ESC through.
    assert "\x1b" in foreign_controls(to_terminal(Text("\x1b]52;c;cHduZWQ=\x07")))


def test_escapes_are_drawn_in_escape_style() -> None:
    text = safe("a\x1bb")
    assert [(s.start, s.end, s.style) for s in text.spans] == [(1, 5, ESCAPE_STYLE)]
    assert "\x1b[7m\\x1b\x1b[0m" in to_terminal(text)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("C:\\Users\\bob", "C:\\Users\\bob"),
        ("C:\\users", "C:\\\\users"),
        ("C:\\x", "C:\\\\x"),
        ("\\x41", "\\\\x41"),
        ("a\\\\b", "a\\\\\\b"),
        ("\\\x1b", "\\\\\\x1b"),
        ("C:\\new\ttab\nline", "C:\\new\ttab\nline"),
        ("\x00\x7f\x80\x9f\xa0", "\\x00\\x7f\\x80\\x9f\xa0"),
        (
            "\u061c\u200e\u200f\u2028\u2029\u2066\u2069",
            "\\u061c\\u200e\\u200f\\u2028\\u2029\\u2066\\u2069",
        ),
        ("\ud800", "\\ud800"),
        ("", ""),
    ],
)
def test_backslash_rule(value: str, expected: str) -> None:
    assert render(value) == expected
    assert decode(expected) == value


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a\nb\tc", "a\\nb\\tc"),
        ("C:\\new", "C:\\\\new"),
        ("C:\\Users", "C:\\Users"),
        ("\\\n", "\\\\\\n"),
        ("x\r\n", "x\\x0d\\n"),
        # blanks an id can hide: drawn as nothing or as a space (helper-72)
        ("H1\u00a0", "H1\\xa0"),
        ("H\u30001", "H\\u30001"),
        ("M1\u2800", "M1\\u2800"),
        ("M1\u1680\u2007\u202f", "M1\\u1680\\u2007\\u202f"),
        ("  a line the tool indents ", "  a line the tool indents "),
    ],
)
def test_one_line(value: str, expected: str) -> None:
    assert render(value, one_line=True) == expected
    assert decode(expected, one_line=True) == value
    assert safe(value, one_line=True).plain == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # a value on its own (a cell, an id): the spaces it begins or ends with (helper-72)
        ("H1 ", "H1\\x20"),
        ("  H1", "\\x20\\x20H1"),
        ("a b", "a b"),
        ("H1\u00a0", "H1\\xa0"),
        ("a\\ ", "a\\\\\\x20"),
        ("   ", "\\x20\\x20\\x20"),
        # letters of another script drawn like Latin ones, in a word that mixes them with
        # Latin or has no letter of its own script that does not look Latin (helper-72)
        ("\u041d1", "\\u041d1"),
        ("p\u0430ypal", "p\\u0430ypal"),
        ("\u0397ello \u039f", "\\u0397ello \\u039f"),
        ("\U0001d407\U0001d41e", "\\u{1d407}\\u{1d41e}"),
        ("a\\\u041d1", "a\\\\\\u041d1"),
        ("\u041f\u0440\u0438\u0432\u0435\u0442", "\u041f\u0440\u0438\u0432\u0435\u0442"),
        ("user:\u0418\u0432\u0430\u043d", "user:\u0418\u0432\u0430\u043d"),
        ("\u0395\u039b\u039b\u0391\u03a3", "\u0395\u039b\u039b\u0391\u03a3"),
    ],
)
def test_one_line_edges(value: str, expected: str) -> None:
    assert render(value, one_line=True, edges=True) == expected
    assert decode(expected, one_line=True) == value
    assert safe(value, one_line=True, edges=True).plain == expected


@pytest.mark.parametrize(
    ("rendered", "decoded"),
    [
        ("\\", "\\"),
        ("\\a", "\\a"),
        ("\\x4", "\\x4"),
        ("\\xZZ", "\\xZZ"),
        ("\\n", "\\n"),
        ("\\\\\\", "\\\\"),
    ],
)
def test_decode_keeps_a_backslash_that_starts_no_escape(rendered: str, decoded: str) -> None:
    assert decode(rendered) == decoded


def test_clean_string_takes_the_fast_path() -> None:
    clean = "svc timeout_repair two traces confirm it"
    assert render(clean) is clean


TRICKY = list(" \\xuntab0f19[]/\n\t\r\u2800\u3000\x00\x07\x1b\x7f\x80\x9b\x9f\xa0…")
TRICKY += ["\u061c", "\u200e", "\u200f", "\u2028", "\u2029", "\u202a", "\u202e", "\u2066", "\u2069"]
TRICKY += ["\ud800", "\udfff", "\U0001f600"]
TRICKY += ["\u041d", "\u0430", "\u041f", "\u0397", "\U0001d407", "H", "a"]
TRICKY += ["\xad", "\u200b", "\u2060", "\u2064", "\ufeff", "\U000e0041", "\U000e007f"]
texts = st.text(alphabet=st.one_of(st.sampled_from(TRICKY), st.characters()))


@settings(max_examples=600)
@given(texts, st.booleans(), st.booleans())
def test_render_round_trips_and_leaves_nothing_dangerous(s: str, one_line: bool, edges: bool) -> None:
    rendered = render(s, one_line=one_line, edges=edges)
    assert decode(rendered, one_line=one_line) == s
    assert [c for c in rendered if is_dangerous(c, one_line=one_line)] == []
    assert not (one_line and edges and (rendered.startswith(" ") or rendered.endswith(" ")))
    assert safe(s, one_line=one_line, edges=edges).plain == rendered


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        (None, ""),
        (3, "3"),
        (2.5, "2.5"),
        (True, "True"),
        ({"a": ["é", None]}, '{"a": ["é", null]}'),
    ],
)
def test_safe_shows_non_strings(value: object, plain: str) -> None:
    assert safe(value).plain == plain


def test_safe_renders_the_json_of_a_container() -> None:
    assert safe(["\x1b"]).plain == '["\\\\u001b"]'


def test_safe_applies_the_base_style_and_never_parses_markup() -> None:
    text = safe("[red]x[/]", style="bold")
    assert (text.plain, text.style, text.spans) == ("[red]x[/]", "bold", [])


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ("[bold]x", '"[bold]x"'),
        ({"p": "C:\\Users"}, '{"p": "C:\\\\Users"}'),
        (
            ["\x1b]52;c;x\x07", "\x9b", "\u202e", "\n"],
            '["\\u001b]52;c;x\\u0007", "\\u009b", "\\u202e", "\\n"]',
        ),
        ({"k": [1, 2.5, None, True]}, '{"k": [1, 2.5, null, true]}'),
    ],
)
def test_safe_json_is_valid_json_of_the_value(value: object, plain: str) -> None:
    text = safe_json(value)
    assert text.plain == plain
    assert json.loads(text.plain) == value


def test_safe_json_styles_control_escapes_but_not_quotes_or_backslashes() -> None:
    text = safe_json('\\"\x9b')
    styled = [text.plain[s.start : s.end] for s in text.spans]
    assert (text.plain, styled) == ('"\\\\\\"\\u009b"', ["\\u009b"])


@pytest.mark.parametrize(
    ("max_chars", "plain"),
    [
        (1, "…"),
        (8, '{"k": "…'),
        (10, '{"k": "C:…'),
        (11, '{"k": "C:…'),
        (12, '{"k": "C:\\\\…'),
        (18, '{"k": "C:\\\\x…'),
        (19, '{"k": "C:\\\\x\\u001b…'),
        (25, '{"k": "C:\\\\x\\u001b\\u009b…'),
        (26, '{"k": "C:\\\\x\\u001b\\u009b"}'),
    ],
)
def test_safe_json_truncates_between_escapes(max_chars: int, plain: str) -> None:
    assert safe_json({"k": "C:\\x\x1b\x9b"}, max_chars=max_chars).plain == plain


def test_safe_json_refuses_a_zero_width() -> None:
    with pytest.raises(ValueError, match="max_chars"):
        safe_json("x", max_chars=0)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300)
@given(json_values, st.integers(min_value=1, max_value=60))
@example({"\U000E0100": None}, 15)         # a variation selector: an astral escape, cut after
def test_safe_json_round_trips_and_truncates_cleanly(value: object, max_chars: int) -> None:
    full = safe_json(value).plain
    assert json.loads(full) == value
    assert [c for c in full if is_dangerous(c, one_line=True, blanks=False)] == []
    cut = safe_json(value, max_chars=max_chars)
    if len(full) <= max_chars:
        assert cut.plain == full
        return
    prefix = cut.plain[: -len(ELLIPSIS)]
    assert len(cut.plain) <= max_chars and cut.plain.endswith(ELLIPSIS) and full.startswith(prefix)
    trailing_backslashes = len(prefix) - len(prefix.rstrip("\\"))
    assert trailing_backslashes % 2 == 0
    escapes = [cut.plain[s.start : s.end] for s in cut.spans][:-1]
    # an astral code point (a tag or variation selector) is one span: its surrogate pair
    assert all(re.fullmatch(r"(\\u[0-9a-f]{4}){1,2}|\\[bfnrt]", e) for e in escapes)


def test_sanitizer_imports_without_textual() -> None:
    code = "import sys, inspector.present.text; print('textual' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


# Through Textual. pytest-asyncio is not installed: each test runs its own loop.


def probe_app(*widgets):
    from textual.app import App

    class Probe(App[None]):
        quit_requested = False

        def compose(self):
            yield from widgets

        async def action_quit(self) -> None:
            self.quit_requested = True

    return Probe()


@pytest.mark.parametrize(("value", "expected"), HOSTILE, ids=HOSTILE_IDS)
def test_static_and_label_show_the_escaped_value(value: str, expected: str) -> None:
    from textual.widgets import Label, Static

    async def shown() -> list[tuple[str, str]]:
        app = probe_app(Static(safe(value), id="static"), Label(safe(value), id="label"))
        async with app.run_test(size=(120, 10)):
            widgets = [app.query_one("#static"), app.query_one("#label")]
            return [(w.render().plain, w.render_line(0).text.rstrip()) for w in widgets]

    assert asyncio.run(shown()) == [(expected, expected)] * 2


def click_first_cell(widget) -> tuple[bool, bool]:
    """Click a widget's first character; (quit requested, app still running)."""
    app = probe_app(widget)

    async def click() -> tuple[bool, bool]:
        async with app.run_test(size=(80, 5)) as pilot:
            await pilot.click("#target", offset=(0, 0))
            await pilot.pause()
            return app.quit_requested, app.is_running

    return asyncio.run(click())


def test_click_markup_does_not_quit_the_app() -> None:
    from textual.widgets import Static

    assert click_first_cell(Static(safe("[@click=app.quit]x[/]"), id="target")) == (False, True)


def test_click_check_catches_unsanitized_markup() -> None:
    from textual.widgets import Static

    # The check above must be able to fail: a plain str is parsed as markup.
    assert click_first_cell(Static("[@click=app.quit]x[/]", id="target"))[0] is True


def test_data_table_cell_with_closing_tag_renders() -> None:
    from textual.widgets import DataTable

    async def first_row() -> str:
        table = DataTable(id="table")
        app = probe_app(table)
        async with app.run_test(size=(80, 5)) as pilot:
            table.add_column("value")
            table.add_row(safe("[/oops] \x1b[2J", one_line=True))
            await pilot.pause()
            return table.render_line(1).text

    assert "[/oops] \\x1b[2J" in asyncio.run(first_row())
