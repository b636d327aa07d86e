-- Which of a set of entries are roots: present, with an empty justification.
SELECT memory_id FROM entries
WHERE memory_id = ANY($ids::VARCHAR[]) AND entity IS NOT NULL AND len(justification) = 0
ORDER BY memory_id
