-- The events of entries to erase whose bodies still hold their states.
SELECT seq FROM versions
WHERE memory_id IN (SELECT unnest($ids::VARCHAR[])) AND NOT redacted ORDER BY seq
