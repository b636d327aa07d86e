SELECT count(*) FROM tui_quarantine
