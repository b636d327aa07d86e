"""Loads the SQL statements in queries/*.sql by name (one statement per file)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files


used: set[str] = set()   # names loaded in this process (the test of every query reads it)


@cache
def sql(name: str) -> str:
    """The text of queries/<name>.sql; KeyError names the missing file."""
    used.add(name)
    resource = files("inspector.queries").joinpath(f"{name}.sql")
    if not resource.is_file():
        raise KeyError(f"no query file queries/{name}.sql")
    return resource.read_text(encoding="utf-8")


def names() -> list[str]:
    """Every query file, for the test that runs them all."""
    return sorted(p.name[:-4] for p in files("inspector.queries").iterdir() if p.name.endswith(".sql"))
