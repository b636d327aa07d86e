-- DESIGN §3.1: the state of each entry is the after of its last event (by seq) with at <= tk.
CREATE OR REPLACE MACRO state_at(tk) AS TABLE
SELECT v.*
FROM versions v
JOIN (SELECT memory_id, max(seq) AS seq FROM versions WHERE "at" <= tk GROUP BY memory_id) last
  ON v.memory_id = last.memory_id AND v.seq = last.seq
WHERE v.entity IS NOT NULL
