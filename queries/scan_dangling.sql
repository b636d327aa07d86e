-- lineage.dangling: citations of ids no entry has (ids of entries hidden by --scope are known).
SELECT src AS memory_id, list(dst ORDER BY dst) AS missing
FROM edges WHERE dst NOT IN (SELECT memory_id FROM known_ids)
GROUP BY src ORDER BY src
