-- The justification edges leaving a set of entries (for cycles and roots).
SELECT src, dst FROM edges WHERE src IN (SELECT unnest($ids::VARCHAR[])) ORDER BY src, dst
