-- Every entry that rests on $id, transitively (DESIGN §4); UNION is the visited guard.
WITH RECURSIVE down(id) AS (
    SELECT src FROM edges WHERE dst = $id
    UNION
    SELECT e.src FROM down JOIN edges e ON e.dst = down.id
)
SELECT id FROM down ORDER BY id
