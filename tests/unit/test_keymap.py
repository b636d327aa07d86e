"""The user's TUI config: keys remapped by binding id, a theme, and a broken file ignored with
one warning (it never stops the inspector from opening a store)."""

from __future__ import annotations

from inspector.tui.keymap import load_config


def test_keys_and_theme_are_read(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('theme = "textual-light"\n[keys]\n"act.quarantine" = "Q"\n"screen.beliefs" = "f1,1"\n')
    assert load_config(path) == {"theme": "textual-light",
                                 "keys": {"act.quarantine": "Q", "screen.beliefs": "f1,1"}}


def test_no_file_is_no_config(tmp_path):
    assert load_config(tmp_path / "missing.toml") == {}


def test_a_broken_file_is_ignored_with_one_warning(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text("keys = [")
    assert load_config(path) == {}
    assert capsys.readouterr().err.count("\n") == 1
    path.write_text('[keys]\n"act.quarantine" = 3\n')
    assert load_config(path) == {"theme": None, "keys": {}}


def test_a_remapped_key_reaches_the_app(tmp_path):
    import asyncio

    from inspector.tui.app import InspectorApp
    from inspector.tui.session import Session
    from inspector.samples import copy_sample

    store = copy_sample("branch-contamination")
    app = InspectorApp(Session(store, operator="alice"), config={"keys": {"act.quarantine": "Q"}})

    async def run():
        async with app.run_test():
            keys = {b.id: b.key for _, b, _, _ in app.screen.active_bindings.values() if b.id}
            return keys.get("act.quarantine")
    assert asyncio.run(run()) == "Q"


def test_the_warning_escapes_the_path_and_an_unknown_theme_opens_the_store(tmp_path, capsys):
    """A config path holding ESC ] 52 wrote to the terminal's clipboard in the warning, and an
    unknown theme ended the TUI with a traceback (helper-73)."""
    import asyncio

    from inspector.tui.app import InspectorApp
    from inspector.tui.session import Session
    from inspector.samples import copy_sample

    path = tmp_path / "c\x1b]52;c;SGVsbG8=\x07.toml"
    path.write_text("x = = 1\n")
    assert load_config(path) == {}
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "c\\x1b]52;c;SGVsbG8=\\x07.toml: ignored" in err

    store = copy_sample("branch-contamination")
    app = InspectorApp(Session(store, operator="alice"), config={"theme": "no-such-theme\x1b[2J"})

    async def run():
        async with app.run_test() as pilot:
            await pilot.pause()
            return app.theme, [n.message for n in app._notifications]
    theme, notes = asyncio.run(run())
    assert theme == "textual-dark"
    assert any(n.startswith("The configuration's theme 'no-such-theme\\x1b[2J' is not one of this "
                            "inspector's (") for n in notes), notes


def test_a_key_that_is_not_a_key_name_is_dropped_with_a_warning(tmp_path, capsys):
    """The key bar and the help draw a remapped key's string as it is: a key of ESC ] 0 ; …
    set the terminal's title and ESC ] 52 its clipboard on every redraw (helper-74). Such a
    remapping is dropped with a one-line warning, escaped; the others are kept."""
    path = tmp_path / "config.toml"
    path.write_text('[keys]\n"act.expire" = "\\u001b]0;PWNED\\u001b\\\\"\n'
                    '"act.retract" = "ctrl+r, R"\n"act.approve" = "?"\n'
                    '"act.reject" = "x,[bold]X[/]"\n"screen.beliefs" = "f1,1"\n')
    assert load_config(path) == {"theme": None, "keys": {
        "act.retract": "ctrl+r, R", "act.approve": "?", "screen.beliefs": "f1,1"}}
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "\x1b" not in err
    assert ("[keys] 'act.expire' = '\\x1b]0;PWNED\\x1b\\\\': '\\x1b]0;PWNED\\x1b\\\\' is not a key "
            'name (e.g. "Q", "ctrl+q", "f1"); that remapping ignored') in err
    assert "'[bold]X[/]' is not a key name" in err
