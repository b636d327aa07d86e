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
-- summary.unsupported: active summaries the belief rule does not support as of $tk (in
-- `support`, which beliefs.in_ranges filled as of $tk).
SELECT s.memory_id, s.justification
FROM state_at($tk, $now) s JOIN support p ON p.memory_id = s.memory_id
WHERE s.status = 'active' AND NOT p.supported
ORDER BY s.memory_id

-- name: scan_echo
-- echo.single_source: an entry citing two or more entries whose ancestry collapses to one
-- independent source (a root: an entry that cites nothing). `reach` is each node's roots
-- reached through what it cites, kept as one root (`one`) or "two or more" (`many`): a node
-- changes at most twice, so the walk is linear in the edges even along a chain of 10,000
-- rolling summaries, where every node's whole ancestry would be quadratic. USING KEY keeps a
-- row a node; each round only the nodes that changed pass their state to their citers.
-- `cited` holds only the keyed entries something cites: a set of every entry's id held 100 MB
-- more at 5M events.
WITH RECURSIVE cited AS MATERIALIZED (
    SELECT memory_id, len(justification) = 0 AS is_root FROM entries
    WHERE entity IS NOT NULL AND memory_id IN (SELECT dst FROM edges)
),
multi AS (
    SELECT src FROM edges WHERE dst IN (SELECT memory_id FROM cited)
    GROUP BY src HAVING count(DISTINCT dst) >= 2
),
root AS MATERIALIZED (SELECT memory_id FROM cited WHERE is_root),
direct AS MATERIALIZED (
    SELECT e.src, min(e.dst) AS lo, max(e.dst) AS hi
    FROM edges e JOIN root r ON r.memory_id = e.dst GROUP BY e.src
),
citers AS MATERIALIZED (SELECT dst, list(DISTINCT src) AS srcs FROM edges GROUP BY dst),
nodes AS MATERIALIZED (SELECT src AS id FROM edges UNION SELECT dst FROM edges),
reach(id, one, many, citers) USING KEY (id) AS (
    SELECT n.id, CASE WHEN d.lo = d.hi THEN d.lo END, coalesce(d.lo <> d.hi, false),
        coalesce(c.srcs, [])
    FROM nodes n LEFT JOIN direct d ON d.src = n.id LEFT JOIN citers c ON c.dst = n.id
    UNION
    -- (no filter on `p` inside the join: DuckDB then looks each citer up by its key instead
    -- of scanning every row of `reach` each round)
    -- (min and max of what the citers carry, as in the support walk's `seen`: a list a
    -- group made each round was most of the walk's time on a dense graph)
    SELECT id, CASE WHEN NOT many THEN coalesce(was_one, lo) END, many, citers FROM (
        SELECT id, citers, was_one, was_many, lo,
            got_many OR coalesce(lo <> hi OR lo <> was_one, false) AS many
        FROM (
            SELECT p.id, any_value(p.citers) AS citers, any_value(p.one) AS was_one,
                any_value(p.many) AS was_many, bool_or(n.many) AS got_many,
                min(n.one) AS lo, max(n.one) AS hi
            FROM (SELECT unnest(citers) AS src, one, many FROM reach
                  WHERE many OR one IS NOT NULL) n
            JOIN recurring.reach p ON p.id = n.src
            GROUP BY p.id
        )
    )
    WHERE NOT was_many AND (many OR coalesce(was_one, lo) IS DISTINCT FROM was_one)
)
SELECT m.src AS memory_id, r.one AS source,
    (SELECT list(dst ORDER BY dst) FROM edges WHERE src = m.src) AS cited
FROM multi m JOIN reach r ON r.id = m.src
WHERE NOT r.many AND r.one IS NOT NULL
ORDER BY m.src

-- name: scan_dangling
-- lineage.dangling: citations of ids no entry has (ids of entries hidden by --scope are known).
-- The known ids are narrowed to the cited ones first: a set of every known id is large.
SELECT src AS memory_id, list(dst ORDER BY dst) AS missing
FROM edges
WHERE dst NOT IN (SELECT memory_id FROM known_ids WHERE memory_id IN (SELECT dst FROM edges))
GROUP BY src ORDER BY src

-- name: scan_expired
-- validity.expired_active: expires_at has passed and the entry is still active.
SELECT memory_id, expires_at FROM entries
WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= $now
ORDER BY memory_id

-- name: scan_id_candidates
-- pii.in_id: ids that may hold an e-mail address or a phone number (an "@", or two digits
-- close together, or anything not ASCII, which detect.pii's NFKC may make one: it decides), of
-- every entry, erased ones too (the id outlives it).
SELECT memory_id FROM entries
WHERE contains(memory_id, '@') OR regexp_matches(memory_id, '\d[ ().-]{0,2}\d|[^\x00-\x7F]')
ORDER BY memory_id

-- name: scan_contested
-- belief.contested: beliefs of the current view marked contested.
SELECT memory_id, scope, entity, attribute, contested_ids FROM beliefs
WHERE list_contains(markers, 'contested') ORDER BY entity, attribute, scope

-- name: scan_text_entries
-- Entries whose values the text detectors read: every live keyed entry, in no order (the
-- findings are sorted; sorting every value here held 50 MB more).
SELECT memory_id, status, source, scope, layer, subject, sensitivity, value::VARCHAR AS value
FROM entries WHERE entity IS NOT NULL AND status IN ('active', 'held', 'quarantined', 'rejected', 'retracted', 'expired')

-- name: scan_malformed
-- entry.malformed: entries whose current state breaks the entry contract (kept, never judged).
SELECT memory_id, status, malformed FROM entries WHERE malformed IS NOT NULL ORDER BY memory_id

-- name: scan_policy_keys
-- policy.protected_key: the key and writer of every active entry, in no order (the policy's
-- globs are matched in Python, the same code the gate runs; the findings are sorted).
SELECT memory_id, entity, attribute, source, authority FROM entries
WHERE status = 'active' AND malformed IS NULL
