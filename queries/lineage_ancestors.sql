-- Everything $id rests on, transitively (DESIGN §4); UNION is the visited guard, so a cycle
-- ends the walk. Cited ids that no entry has are returned too (see lineage_presence.sql).
WITH RECURSIVE up(id) AS (
    SELECT dst FROM edges WHERE src = $id
    UNION
    SELECT e.dst FROM up JOIN edges e ON e.src = up.id
)
SELECT id FROM up ORDER BY id
