-- echo.single_source: an entry citing two or more entries whose ancestry collapses to one
-- independent source (a root: an entry that cites nothing). UNION is the visited guard.
WITH RECURSIVE multi AS (
    SELECT src FROM edges WHERE dst IN (SELECT memory_id FROM entries WHERE entity IS NOT NULL)
    GROUP BY src HAVING count(DISTINCT dst) >= 2
), up(start, node) AS (
    SELECT e.src, e.dst FROM edges e JOIN multi m ON m.src = e.src
    UNION
    SELECT up.start, e.dst FROM up JOIN edges e ON e.src = up.node
), roots AS (
    SELECT up.start, up.node FROM up
    JOIN entries r ON r.memory_id = up.node AND r.entity IS NOT NULL AND len(r.justification) = 0
)
SELECT start AS memory_id, any_value(node) AS source,
    (SELECT list(dst ORDER BY dst) FROM edges WHERE src = start) AS cited
FROM roots GROUP BY start HAVING count(DISTINCT node) = 1
ORDER BY start
