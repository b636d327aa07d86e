SELECT * FROM tui_beliefs WHERE vpos BETWEEN $first AND $last ORDER BY vpos
