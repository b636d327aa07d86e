SELECT count(*) FROM tui_conflicts
