-- Entries whose last quarantine event belongs to one of $batches (release --cascade).
SELECT memory_id, batch FROM (
    SELECT memory_id, arg_max(batch, seq) AS batch FROM versions WHERE op = 'quarantine'
    GROUP BY memory_id
) WHERE batch IN (SELECT unnest($batches::VARCHAR[]))
ORDER BY memory_id
