"""The terminal UI; this package init stays free of Textual (the sanitizer lives in inspector.present)."""
