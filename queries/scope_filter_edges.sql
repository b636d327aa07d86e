DELETE FROM edges WHERE src NOT IN (SELECT memory_id FROM entries)
