-- Key, value and status of a set of entries (labels of the lineage tree).
SELECT memory_id, entity, attribute, value, kind, status, scope FROM entries
WHERE memory_id = ANY($ids::VARCHAR[])
