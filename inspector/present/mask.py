"""Masking secrets for people: the one function the TUI, the CLI's human output and reports use.

An entry's value is masked when the gate held it as `secret`, its `sensitivity` is `secret`,
or any string in it looks like a credential (the `secret` detector, as `scan`'s
`secret.value`). Masked strings keep their first four characters and their length
(`sk-l…[40 chars]`), so two secrets can still be told apart without being read. `--json`
output is for programs and is never masked; `--reveal-secrets` (CLI) and the reveal key (TUI)
show the one value asked for.
"""

from __future__ import annotations

from ..store import detect
from ..store.model import sensitivity_of

SHOWN = 4


def is_secret(entry: dict | None) -> bool:
    """Whether an entry's value is shown masked (held as secret, marked secret, or holding a
    credential)."""
    if not entry:
        return False
    if entry.get("held_reason") == "secret" or sensitivity_of(entry.get("sensitivity")) == "secret":
        return True
    return any(detect.secret(text) for text in detect.texts_of(entry.get("value")))


def mask_text(text: str) -> str:
    """`sk-live-ABCD…` → `sk-l…[40 chars]`: the start and the length, never the rest."""
    if len(text) <= SHOWN:
        return f"…[{len(text)} chars]"
    return f"{text[:SHOWN]}…[{len(text)} chars]"


def mask_value(value):
    """The value with every string in it masked (keys kept); numbers and structure stay.
    Iterative: a hostile value may be deep, and masking never recurses on it."""
    root: list = [None]
    work: list = [(value, root, 0)]
    fills: list = []                         # (dict copy, keys, their masked values)
    while work:
        item, parent, slot = work.pop()
        if isinstance(item, str):
            parent[slot] = mask_text(item)
        elif isinstance(item, dict):
            keys, holder = list(item), [None] * len(item)
            parent[slot] = {}
            fills.append((parent[slot], keys, holder))
            work.extend((item[key], holder, i) for i, key in enumerate(keys))
        elif isinstance(item, list):
            parent[slot] = [None] * len(item)
            work.extend((child, parent[slot], i) for i, child in enumerate(item))
        else:
            parent[slot] = item
    for copy, keys, holder in fills:
        copy.update(zip(keys, holder))
    return root[0]


def shown_value(entry: dict | None, reveal: bool = False):
    """The value as a person may see it: masked when the entry is secret, unless revealed."""
    if entry is None:
        return None
    value = entry.get("value")
    return value if reveal or not is_secret(entry) else mask_value(value)
