-- The current state of every entry touched by the staged lines: its last version, with the
-- stored `after` verbatim (unknown fields kept) as `state`.
INSERT INTO entries
SELECT v.*, r.body.after AS state
FROM versions v
JOIN (SELECT memory_id, max(seq) AS seq FROM versions
      WHERE memory_id IN (SELECT memory_id FROM staged) GROUP BY memory_id) last
  ON v.memory_id = last.memory_id AND v.seq = last.seq
JOIN raw r ON r.line_no = v.seq
