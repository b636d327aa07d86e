-- Of some cited ids: which are loaded entries, and which the log names at all (an id the
-- log names but the --scope filter did not load is hidden, not dangling).
SELECT k.memory_id, e.memory_id IS NOT NULL AS present
FROM known_ids k LEFT JOIN entries e ON e.memory_id = k.memory_id AND e.memory_id = ANY($ids::VARCHAR[])
WHERE k.memory_id = ANY($ids::VARCHAR[])
