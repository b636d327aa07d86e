-- A point-lookup index for the TUI's per-keystroke queries (detail pane, lineage).
CREATE INDEX IF NOT EXISTS idx_versions_id ON versions(memory_id)
