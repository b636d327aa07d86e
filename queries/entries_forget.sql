DELETE FROM entries WHERE memory_id IN (SELECT memory_id FROM staged)
