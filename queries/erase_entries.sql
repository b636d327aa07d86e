-- Current status, kind and retention of entries considered for erasure.
SELECT memory_id, status, kind, retention FROM entries
WHERE memory_id IN (SELECT unnest($ids::VARCHAR[])) ORDER BY memory_id
