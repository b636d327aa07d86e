-- The Audit screen: the log in seq order (seq 1 is vpos 0) for an unfiltered store.
SELECT seq - 1 AS vpos, seq, "at", actor, op, memory_id, batch, reason, status, redacted, hash
FROM versions WHERE seq BETWEEN $first + 1 AND $last + 1 ORDER BY seq
