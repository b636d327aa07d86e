SELECT count(*) FROM tui_beliefs
