"""The core: the event log, its chain, loading into DuckDB, queries, actions and detectors (no Textual, no Rich)."""
