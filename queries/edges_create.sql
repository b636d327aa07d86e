-- Justification edges of the current entries: src rests on dst.
CREATE TABLE IF NOT EXISTS edges (src VARCHAR, dst VARCHAR)
