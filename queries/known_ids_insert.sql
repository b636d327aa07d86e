INSERT INTO known_ids
SELECT DISTINCT memory_id FROM staged
WHERE memory_id NOT IN (SELECT memory_id FROM known_ids)
