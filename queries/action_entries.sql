-- Current state of the named entries (for a plan).
SELECT memory_id, status, scope, entity, attribute, state
FROM entries WHERE memory_id IN (SELECT unnest($ids::VARCHAR[]))
ORDER BY memory_id
