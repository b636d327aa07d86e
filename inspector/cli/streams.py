"""The standard streams as every command writes them, whatever they are: a stdout whose
encoding cannot hold every code point (ASCII, Latin-1) still takes the whole output, the
untrusted text in it escaped by the sanitizer and the tool's own symbols (✓ ⚠ …) as
backslash escapes, never a UnicodeEncodeError."""

from __future__ import annotations

import codecs
import sys


def prepare() -> None:
    """Set the streams up before a command runs (`inspector.cli.main`)."""
    encoding = getattr(sys.stdout, "encoding", None)
    if encoding and not codecs.lookup(encoding).name.startswith("utf"):
        from ..present.text import set_output_encoding
        set_output_encoding(encoding)
        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(errors="backslashreplace")
