SELECT * FROM tui_log WHERE vpos BETWEEN $first AND $last ORDER BY vpos
