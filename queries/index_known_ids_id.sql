-- A point-lookup index for the TUI's per-keystroke queries (detail pane, lineage).
CREATE INDEX IF NOT EXISTS idx_known_ids_id ON known_ids(memory_id)
