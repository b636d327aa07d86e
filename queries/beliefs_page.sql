-- One page of the view's belief table.
SELECT * FROM beliefs WHERE pos BETWEEN $first AND $last ORDER BY pos
