-- What changed between two times (`diff`): the belief tables at T1 and at T2, each computed by
-- the belief rule (beliefs_in over `judged` as of that time), kept side by side in temp tables,
-- then compared row by row with the events that caused each change. Only keys that can differ
-- are judged: those of entries with an event between the times, of entries whose observed or
-- valid time falls between them, and of summaries resting on the former. The caller runs these
-- in one transaction that it rolls back, so the view's own `judged` and `beliefs` stay as they
-- were.

-- name: diff_tables_create
-- The two belief tables, one row per (side, scope, entity, attribute), with the ids that cause
-- each marker (they are among the entries a change involves).
CREATE OR REPLACE TEMP TABLE diff_side (
    side VARCHAR, scope VARCHAR, entity VARCHAR, attribute VARCHAR, memory_id VARCHAR,
    value JSON, markers VARCHAR[], marker_ids VARCHAR[]
)

-- name: diff_edges_create
-- Justification edges of the entries as they stood at either time (what a belief rests on).
CREATE OR REPLACE TEMP TABLE diff_edges AS
SELECT DISTINCT src, dst FROM (
    SELECT memory_id AS src, unnest(justification) AS dst FROM state_at($t1)
    WHERE len(justification) > 0
    UNION ALL
    SELECT memory_id AS src, unnest(justification) AS dst FROM state_at($t2)
    WHERE len(justification) > 0
)

-- name: diff_keys_create
-- The keys whose beliefs can differ between $t1 and $t2: keys an entry had up to $t2 when the
-- entry, or anything it rests on, has an event in ($t1, $t2], or when its observed_at,
-- valid_from or valid_to lies in ($t1, $t2] (the knowledge and valid times cross it).
-- UNION in the recursive walk is the visited guard.
CREATE OR REPLACE TEMP TABLE diff_keys AS
WITH RECURSIVE
touched AS (SELECT DISTINCT memory_id FROM versions WHERE "at" > $t1 AND "at" <= $t2),
down(id) AS (
    SELECT memory_id FROM touched
    UNION
    SELECT e.src FROM down JOIN diff_edges e ON e.dst = down.id
),
timed AS (
    SELECT DISTINCT memory_id FROM versions
    WHERE "at" <= $t2 AND ((observed_at > $t1 AND observed_at <= $t2)
        OR (valid_from > $t1 AND valid_from <= $t2) OR (valid_to > $t1 AND valid_to <= $t2))
),
ids AS (SELECT id FROM down UNION SELECT memory_id FROM timed)
SELECT DISTINCT v.entity, v.attribute
FROM versions v JOIN ids ON ids.id = v.memory_id
WHERE v."at" <= $t2 AND v.entity IS NOT NULL

-- name: diff_judged
-- `judged` as of $t, for the keys that can differ only (support and effective authority are
-- still judged over the whole store).
CREATE OR REPLACE TABLE judged AS
SELECT * FROM judged_at($t)
WHERE (entity, attribute) IN (SELECT (entity, attribute) FROM diff_keys)

-- name: diff_side_fill
-- One side: the belief table of `judged` at tk = tv = $t, store-wide ($ctx NULL) or for
-- context $ctx.
INSERT INTO diff_side
SELECT $side, scope, entity, attribute, memory_id, value, markers,
    list_concat(contested_ids, claim_ids, inference_ids, vetoed_ids)
FROM beliefs_in($t, $t, $ctx, false)

-- name: diff_changes
-- Rows whose belief, value or markers differ between the sides, each with its causes: the
-- events with "at" in ($t1, $t2] on the entries involved (the beliefs before and after, the
-- entries causing a marker on either side) or on anything they rest on, in seq order. UNION in
-- the recursive walk is the visited guard. Causes are put in seq order by sorting each list
-- (a struct sorts by its first field, the unique seq), far cheaper than an ordered aggregate.
-- One JSON object a row (times in UTC with Z): far quicker to hand over than nested structs.
WITH RECURSIVE
b AS (SELECT * FROM diff_side WHERE side = 'before'),
a AS (SELECT * FROM diff_side WHERE side = 'after'),
changed AS MATERIALIZED (
    SELECT row_number() OVER (ORDER BY coalesce(a.entity, b.entity), coalesce(a.attribute, b.attribute),
                              coalesce(a.scope, b.scope)) AS n,
        coalesce(a.scope, b.scope) AS scope, coalesce(a.entity, b.entity) AS entity,
        coalesce(a.attribute, b.attribute) AS attribute,
        b.memory_id AS before_id, b.value AS before_value,
        a.memory_id AS after_id, a.value AS after_value,
        coalesce(b.markers, []) AS markers_before, coalesce(a.markers, []) AS markers_after,
        list_concat([b.memory_id, a.memory_id], coalesce(b.marker_ids, []),
                    coalesce(a.marker_ids, [])) AS involved
    FROM b FULL OUTER JOIN a
      ON a.scope = b.scope AND a.entity = b.entity AND a.attribute = b.attribute
    WHERE b.memory_id IS DISTINCT FROM a.memory_id
       OR b.value::VARCHAR IS DISTINCT FROM a.value::VARCHAR
       OR coalesce(b.markers, []) <> coalesce(a.markers, [])
),
seeds AS (
    SELECT DISTINCT n, id FROM (SELECT n, unnest(involved) AS id FROM changed) WHERE id IS NOT NULL
),
up(start, id) AS (
    SELECT e.src, e.dst FROM diff_edges e WHERE e.src IN (SELECT id FROM seeds)
    UNION
    SELECT up.start, e.dst FROM up JOIN diff_edges e ON e.src = up.id
),
reached AS (
    SELECT n, id FROM seeds
    UNION
    SELECT s.n, up.id FROM seeds s JOIN up ON up.start = s.id
),
window_events AS (
    SELECT seq, actor, op, memory_id, batch, reason,
        strftime("at", CASE WHEN epoch_us("at") % 1000000 = 0 THEN '%Y-%m-%dT%H:%M:%SZ'
                            ELSE '%Y-%m-%dT%H:%M:%S.%fZ' END) AS "at"
    FROM versions
    WHERE "at" > $t1 AND "at" <= $t2
),
causes AS (
    SELECT r.n,
        list_sort(list({'seq': w.seq, 'at': w."at", 'actor': w.actor, 'op': w.op,
                        'memory_id': w.memory_id, 'batch': w.batch, 'reason': w.reason}))
            AS causes
    FROM reached r JOIN window_events w ON w.memory_id = r.id
    GROUP BY r.n
)
SELECT to_json({
    'scope': c.scope, 'entity': c.entity, 'attribute': c.attribute,
    'before': CASE WHEN c.before_id IS NOT NULL
                   THEN {'memory_id': c.before_id, 'value': c.before_value} END,
    'after': CASE WHEN c.after_id IS NOT NULL
                  THEN {'memory_id': c.after_id, 'value': c.after_value} END,
    'markers_before': c.markers_before, 'markers_after': c.markers_after,
    'causes': coalesce(k.causes, [])})::VARCHAR
FROM changed c
LEFT JOIN causes k ON k.n = c.n
ORDER BY c.n
