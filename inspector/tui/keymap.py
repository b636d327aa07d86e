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
    return {"theme": theme, "keys": keys}
