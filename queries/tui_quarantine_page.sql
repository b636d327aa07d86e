SELECT * FROM tui_quarantine WHERE vpos BETWEEN $first AND $last ORDER BY vpos
