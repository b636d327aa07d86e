-- For quarantined entries: the batch of their last quarantine event and the status they had
-- before it (what release restores).
WITH q AS (
    SELECT memory_id, max(seq) AS seq FROM versions
    WHERE op = 'quarantine' AND memory_id IN (SELECT unnest($ids::VARCHAR[]))
    GROUP BY memory_id
)
SELECT q.memory_id, v.batch,
    (SELECT p.status FROM versions p WHERE p.memory_id = q.memory_id AND p.seq < q.seq
     ORDER BY p.seq DESC LIMIT 1) AS before_status
FROM q JOIN versions v ON v.memory_id = q.memory_id AND v.seq = q.seq
ORDER BY q.memory_id
