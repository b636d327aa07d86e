-- The justification edges leaving a set of entries (for cycles and the lineage tree).
SELECT src, dst FROM edges WHERE src = ANY($ids::VARCHAR[]) ORDER BY src, dst
