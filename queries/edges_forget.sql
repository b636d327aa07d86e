DELETE FROM edges WHERE src IN (SELECT memory_id FROM staged)
