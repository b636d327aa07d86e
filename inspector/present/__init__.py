"""What the two front ends share about showing things: the one sanitizer (`text`) and the
presentation constants (`glyphs`: marker badges, severities, masks). It imports Rich, never
Textual or Typer, so both the CLI and the TUI build on it."""
