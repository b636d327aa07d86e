"""Loads the named SQL statements of queries/*.sql (package inspector.queries).

A file holds a few statements on one subject, each starting at a line `-- name: <name>` and
running to the next such line or the end of the file (the layout of aiosql and sqlspec).
Comments before the first name describe the file. A statement's text is passed to DuckDB as
written, parameters bound by DuckDB ($name), never formatted in.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

NAME = re.compile(r"^-- name:[ \t]*(.*?)[ \t]*$", re.M)


def parse(text: str, origin: str = "<text>") -> dict[str, str]:
    """The statements of one file by name; non-comment text before the first name is an error."""
    parts = NAME.split(text)            # [preamble, name1, body1, name2, body2, ...]
    if any(line.strip() and not line.lstrip().startswith("--") for line in parts[0].splitlines()):
        raise ValueError(f"{origin}: SQL before the first '-- name:' line")
    found: dict[str, str] = {}
    for name, body in zip(parts[1::2], parts[2::2]):
        if not name.isidentifier():
            raise ValueError(f"{origin}: {name!r} is not a statement name")
        if name in found:
            raise ValueError(f"{origin}: statement {name!r} is named twice")
        found[name] = re.sub(r"\A\s*\n|\s+\Z", "", body) + "\n"   # drop the blank lines around it
    return found


@cache
def statements() -> dict[str, str]:
    """Every statement in the package, read once; a name used in two files is an error."""
    found: dict[str, str] = {}
    origin: dict[str, str] = {}
    for resource in sorted(files("inspector.queries").iterdir(), key=lambda r: r.name):
        if not resource.name.endswith(".sql"):
            continue
        for name, text in parse(resource.read_text(encoding="utf-8"), resource.name).items():
            if name in found:
                raise ValueError(f"statement {name!r} is in both {origin[name]} and {resource.name}")
            found[name], origin[name] = text, resource.name
    return found


def sql(name: str) -> str:
    """The text of the statement `name`; KeyError names a statement that no file has."""
    try:
        return statements()[name]
    except KeyError:
        raise KeyError(f"no SQL statement named {name!r} in queries/*.sql") from None


def names() -> list[str]:
    """Every statement name, sorted."""
    return sorted(statements())
