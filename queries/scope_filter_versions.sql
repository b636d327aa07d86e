DELETE FROM versions WHERE memory_id NOT IN (SELECT memory_id FROM entries)
