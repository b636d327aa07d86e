-- The events of one entry, oldest first.
SELECT seq, "at", actor, op, reason, batch, status, value, redacted
FROM versions WHERE memory_id = $id ORDER BY seq
