INSERT INTO edges
SELECT memory_id AS src, unnest(justification) AS dst
FROM entries
WHERE memory_id IN (SELECT memory_id FROM staged)
