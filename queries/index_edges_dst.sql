-- A point-lookup index for the TUI's per-keystroke queries (detail pane, lineage).
CREATE INDEX IF NOT EXISTS idx_edges_dst ON edges(dst)
