-- The string values of every version of the entries to erase (to keep them out of the reason).
SELECT DISTINCT value ->> '$' FROM versions
WHERE memory_id IN (SELECT unnest($ids::VARCHAR[])) AND json_type(value) = 'VARCHAR'
