SELECT count(*) FROM tui_held
