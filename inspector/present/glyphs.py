"""Presentation constants both front ends show: the badges of belief markers and their legend,
and the styles of finding severities."""

from __future__ import annotations

# A belief row's markers (DESIGN's markers, plus where the row's winner comes from).
MARK_BADGES = {"contested": "⚑", "claim_disagrees": "C", "inference_disagrees": "I",
               "vetoed_newer": "V", "overridden": "↓", "from_broader": "↑"}
MARK_LEGEND = ("⚑ contested · C claim disagrees · I inference disagrees · V vetoed newer · "
               "↓ overridden in a narrower scope · ↑ won by a broader scope's entry")

SEVERITY_STYLE = {"high": "bold red", "medium": "yellow", "low": "dim"}


def badges(names) -> str:
    """The badges of marker names, in the legend's order."""
    present = set(names or ())
    return "".join(glyph for name, glyph in MARK_BADGES.items() if name in present)
