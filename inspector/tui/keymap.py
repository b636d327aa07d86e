"""The user's TUI configuration: `~/.config/inspector/config.toml` (or $XDG_CONFIG_HOME/inspector,
or the file $INSPECTOR_CONFIG names), with a theme and keys remapped by binding id:

    theme = "textual-light"
    [keys]
    "act.quarantine" = "Q"          # every curation action: act.<name>
    "screen.beliefs" = "f1,1"       # screens: screen.<name>; several keys comma-separated

A file that cannot be read or parsed is reported once and ignored: a broken config never
stops the inspector from opening a store.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from pathlib import Path

from ..present.text import render_message


def config_path() -> Path:
    if os.environ.get("INSPECTOR_CONFIG"):
        return Path(os.environ["INSPECTOR_CONFIG"])
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "inspector" / "config.toml"


def _warn(message: str) -> None:
    """A warning on stderr, its untrusted parts (the path, the parser's words) escaped: a path
    holding ESC ] 52 wrote to the terminal's clipboard (helper-73)."""
    print("warning: " + render_message(message), file=sys.stderr)


def load_config(path: Path | None = None) -> dict:
    """{"theme": str | None, "keys": {binding id: keys}}; empty when there is no file."""
    path = path or config_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        _warn(f"{path}: ignored ({exc})")
        return {}
    except RecursionError:
        _warn(f"{path}: ignored (nested too deeply to be a configuration)")
        return {}
    keys = data.get("keys", {})
    if not isinstance(keys, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                             for k, v in keys.items()):
        _warn(f"{path}: [keys] must map binding ids to key strings; keys ignored")
        keys = {}
    theme = data.get("theme") if isinstance(data.get("theme"), str) else None
    return {"theme": theme, "keys": {binding: spec for binding, spec in keys.items()
                                     if _keys_ok(path, binding, spec)}}


# A key as Textual names one: a name of letters, digits and underscores, with modifiers
# joined by "+" ("ctrl+q", "f1", "question_mark"), or one printable character ("Q", "?").
_KEY_NAME = re.compile(r"[A-Za-z0-9_]+(?:\+[A-Za-z0-9_]+)*")


def _key_ok(key: str) -> bool:
    return bool(_KEY_NAME.fullmatch(key)) or (
        len(key) == 1 and key.isprintable() and not key.isspace() and render_message(key) == key)


def _keys_ok(path: Path, binding: str, spec: str) -> bool:
    """Whether every comma-separated key of a remapping is a key name; if not, the remapping is
    dropped with a warning. The key bar and the help draw these strings as they are: a key of
    ESC ] 0 ; … set the terminal's title on every redraw (helper-74)."""
    bad = [key for key in spec.split(",") if not _key_ok(key.strip())]
    if bad:
        _warn(f"{path}: [keys] {binding!r} = {spec!r}: {bad[0].strip()!r} is not a key name "
              f"(e.g. \"Q\", \"ctrl+q\", \"f1\"); that remapping ignored")
    return not bad
