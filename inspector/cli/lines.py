"""The command line's one-line messages on stderr (errors, warnings, notes, a write's
summary), without Rich: a command that prints only these never imports it."""

from __future__ import annotations

import sys

from ..present.text import render_message


def say(message: str) -> None:
    """One line on stderr (errors, warnings, notes): never wrapped, escapes visible."""
    sys.stderr.write(render_message(message) + "\n")
    sys.stderr.flush()


def print_ingest(result) -> None:
    say(f"written {len(result.written)}, held {len(result.held)}, "
        f"updated {len(result.updated)}, unchanged {len(result.unchanged)}, "
        f"rejected lines {len(result.rejected)}")
    for memory_id, reason in result.held.items():
        say(f"  held {memory_id}: {reason}")
    for number, error in result.rejected:
        say(f"  line {number}: {error}")
