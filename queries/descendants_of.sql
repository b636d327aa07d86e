-- Every entry resting on any of $ids, transitively; UNION is the visited guard.
WITH RECURSIVE down(id) AS (
    SELECT src FROM edges WHERE dst IN (SELECT unnest($ids::VARCHAR[]))
    UNION
    SELECT e.src FROM down JOIN edges e ON e.dst = down.id
)
SELECT id FROM down WHERE id NOT IN (SELECT unnest($ids::VARCHAR[])) ORDER BY id
