SELECT * FROM tui_conflicts WHERE vpos BETWEEN $first AND $last ORDER BY vpos
