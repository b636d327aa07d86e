"""The terminal UI; this package init stays free of Textual so `inspector.tui.text` imports without it."""
