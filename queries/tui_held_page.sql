SELECT * FROM tui_held WHERE vpos BETWEEN $first AND $last ORDER BY vpos
