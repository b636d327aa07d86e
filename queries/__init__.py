"""SQL statements, one per file, named for what they answer; loaded by inspector.store.queries."""
