-- Everything $id rests on, transitively (DESIGN §4); UNION is the visited guard, so a cycle
-- ends the walk. Cited ids that no entry has are returned too, flagged.
WITH RECURSIVE up(id) AS (
    SELECT dst FROM edges WHERE src = $id
    UNION
    SELECT e.dst FROM up JOIN edges e ON e.src = up.id
)
SELECT up.id, e.memory_id IS NOT NULL AS present, k.memory_id IS NOT NULL AS known
FROM up
LEFT JOIN entries e ON e.memory_id = up.id
LEFT JOIN known_ids k ON k.memory_id = up.id
ORDER BY up.id
