"""SQL as named statements (`-- name: <name>`), a few files per subject; loaded by inspector.store.queries."""
