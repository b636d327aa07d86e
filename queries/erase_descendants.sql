-- Everything derived from $ids in any version: an entry that once cited an erased entry
-- holds what it was derived from, even if it cites something else now.
WITH RECURSIVE cites AS (
    SELECT DISTINCT memory_id AS src, unnest(justification) AS dst FROM versions
    WHERE justification IS NOT NULL AND len(justification) > 0
), down(id) AS (
    SELECT src FROM cites WHERE dst IN (SELECT unnest($ids::VARCHAR[]))
    UNION
    SELECT c.src FROM down JOIN cites c ON c.dst = down.id
)
SELECT id FROM down WHERE id NOT IN (SELECT unnest($ids::VARCHAR[])) ORDER BY id
