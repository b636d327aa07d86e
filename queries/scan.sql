-- `scan`: one statement per structural finding; each returns the rows of its finding.

-- name: scan_scope_leak
-- scope.leak: an entry citing an entry whose scope is not visible from its own scope.
SELECT e.src AS memory_id, list(e.dst ORDER BY e.dst) AS cited, any_value(s.scope) AS scope
FROM edges e
JOIN entries s ON s.memory_id = e.src AND s.entity IS NOT NULL
JOIN entries t ON t.memory_id = e.dst AND t.entity IS NOT NULL
WHERE NOT visible(t.scope, s.scope)
GROUP BY e.src
ORDER BY e.src

-- name: scan_unsupported
-- summary.unsupported: active summaries the belief rule does not support as of $tk.
SELECT s.memory_id, s.justification
FROM state_at($tk) s JOIN support_at($tk) p ON p.memory_id = s.memory_id
WHERE s.status = 'active' AND NOT p.supported
ORDER BY s.memory_id

-- name: scan_echo
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

-- name: scan_dangling
-- lineage.dangling: citations of ids no entry has (ids of entries hidden by --scope are known).
SELECT src AS memory_id, list(dst ORDER BY dst) AS missing
FROM edges WHERE dst NOT IN (SELECT memory_id FROM known_ids)
GROUP BY src ORDER BY src

-- name: scan_expired
-- validity.expired_active: expires_at has passed and the entry is still active.
SELECT memory_id, expires_at FROM entries
WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= $now
ORDER BY memory_id

-- name: scan_contested
-- belief.contested: beliefs of the current view marked contested.
SELECT memory_id, scope, entity, attribute, contested_ids FROM beliefs
WHERE list_contains(markers, 'contested') ORDER BY entity, attribute, scope

-- name: scan_text_entries
-- Entries whose values the text detectors read: every live keyed entry.
SELECT memory_id, status, source, scope, layer, subject, sensitivity, value::VARCHAR AS value
FROM entries WHERE entity IS NOT NULL AND status IN ('active', 'held', 'quarantined', 'rejected', 'retracted', 'expired')
ORDER BY memory_id

-- name: scan_malformed
-- entry.malformed: entries whose current state breaks the entry contract (kept, never judged).
SELECT memory_id, status, malformed FROM entries WHERE malformed IS NOT NULL ORDER BY memory_id

-- name: scan_policy_keys
-- policy.protected_key: the key and writer of every active entry (the policy's globs are
-- matched in Python, the same code the gate runs).
SELECT memory_id, entity, attribute, source, authority FROM entries
WHERE status = 'active' AND malformed IS NULL ORDER BY memory_id
