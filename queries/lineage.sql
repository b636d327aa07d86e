-- Lineage (DESIGN §4): walks over the justification edges, each with a visited guard, and
-- the core of edges that may lie on a cycle.

-- name: lineage_ancestors
-- Everything $id rests on, transitively (DESIGN §4); UNION is the visited guard, so a cycle
-- ends the walk. Cited ids that no entry has are returned too (see lineage_presence).
WITH RECURSIVE up(id) AS (
    SELECT dst FROM edges WHERE src = $id
    UNION
    SELECT e.dst FROM up JOIN edges e ON e.src = up.id
)
SELECT id FROM up ORDER BY id

-- name: lineage_descendants
-- Every entry that rests on $id, transitively (DESIGN §4); UNION is the visited guard.
WITH RECURSIVE down(id) AS (
    SELECT src FROM edges WHERE dst = $id
    UNION
    SELECT e.src FROM down JOIN edges e ON e.dst = down.id
)
SELECT id FROM down ORDER BY id

-- name: descendants_of
-- Every entry resting on any of $ids, transitively; UNION is the visited guard.
WITH RECURSIVE down(id) AS (
    SELECT src FROM edges WHERE dst IN (SELECT unnest($ids::VARCHAR[]))
    UNION
    SELECT e.src FROM down JOIN edges e ON e.dst = down.id
)
SELECT id FROM down WHERE id NOT IN (SELECT unnest($ids::VARCHAR[])) ORDER BY id

-- name: lineage_presence
-- Of some cited ids: which are loaded entries, and which the log names at all (an id the
-- log names but the --scope filter did not load is hidden, not dangling).
SELECT k.memory_id, e.memory_id IS NOT NULL AS present
FROM known_ids k LEFT JOIN entries e ON e.memory_id = k.memory_id AND e.memory_id = ANY($ids::VARCHAR[])
WHERE k.memory_id = ANY($ids::VARCHAR[])

-- name: lineage_roots
-- Which of a set of entries are roots: present, with an empty justification.
SELECT memory_id FROM entries
WHERE memory_id = ANY($ids::VARCHAR[]) AND entity IS NOT NULL AND len(justification) = 0
ORDER BY memory_id

-- name: lineage_edges
-- The justification edges leaving a set of entries (for cycles and the lineage tree).
SELECT src, dst FROM edges WHERE src = ANY($ids::VARCHAR[]) ORDER BY src, dst

-- name: lineage_inner_edges
-- The justification edges between entries of a set: a lineage's cycles lie among its own
-- entries (an entry on a cycle with an ancestor is an ancestor, with a descendant a
-- descendant), so the edges leaving it to other entries are not read (a summary citing 200
-- entries each, 5,066 entries: 142,199 edges leave them, 5,705 stay inside).
SELECT src, dst FROM edges WHERE src = ANY($ids::VARCHAR[]) AND dst = ANY($ids::VARCHAR[])
ORDER BY src, dst

-- name: cycle_core_init
-- The edges that may lie on a justification cycle; cycle_core_prune strips the rest.
CREATE OR REPLACE TEMP TABLE cycle_core AS SELECT DISTINCT src, dst FROM edges

-- name: cycle_core_prune
-- An edge whose source nothing cites, or whose target cites nothing, is on no cycle.
DELETE FROM cycle_core
WHERE src NOT IN (SELECT dst FROM cycle_core) OR dst NOT IN (SELECT src FROM cycle_core)

-- name: cycle_core_edges
SELECT src, dst FROM cycle_core ORDER BY src, dst
