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
    SELECT memory_id AS src, unnest(justification) AS dst FROM state_at($t1, $now1)
    WHERE len(justification) > 0
    UNION ALL
    SELECT memory_id AS src, unnest(justification) AS dst FROM state_at($t2, $now2)
    WHERE len(justification) > 0
)

-- name: diff_reach_create
-- The entries whose beliefs can differ between $t1 and $t2 because of an event: those with an
-- event in ($t1, $t2] and everything resting on them (diff_reach; the causes' walk up follows
-- only these). UNION in the recursive walk is the visited guard.
CREATE OR REPLACE TEMP TABLE diff_reach AS
WITH RECURSIVE
down(id) AS (
    SELECT DISTINCT memory_id FROM versions WHERE "at" > $t1 AND "at" <= $t2
    UNION
    SELECT e.src FROM down JOIN diff_edges e ON e.dst = down.id
)
SELECT id FROM down

-- name: diff_keys_create
-- The keys whose beliefs can differ between $t1 and $t2: keys the entries of diff_reach had
-- up to $t2, and keys of entries whose observed_at, valid_from or valid_to lies in ($t1, $t2]
-- (the knowledge and valid times cross it).
CREATE OR REPLACE TEMP TABLE diff_keys AS
WITH
timed AS (
    SELECT DISTINCT memory_id FROM versions
    WHERE "at" <= $t2 AND ((observed_at > $t1 AND observed_at <= $t2)
        OR (valid_from > $t1 AND valid_from <= $t2) OR (valid_to > $t1 AND valid_to <= $t2))
),
ids AS (SELECT id FROM diff_reach UNION SELECT memory_id FROM timed)
SELECT DISTINCT v.entity, v.attribute
FROM versions v JOIN ids ON ids.id = v.memory_id
WHERE v."at" <= $t2 AND v.entity IS NOT NULL

-- name: diff_judged
-- `judged` as of $t, for the keys that can differ only (support and effective authority are
-- still judged over the whole store).
CREATE OR REPLACE TABLE judged AS
SELECT * FROM judged_at($t, $now)
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
-- entries causing a marker on either side), then on what they rest on, nearest first, at most
-- $max_causes of them and $max_steps justification steps up; `causes_truncated` says the list
-- stops short (more events, or entries with events further up or beyond $max_causes at one
-- step). The bounds keep the answer linear in the changes: without them a chain of n rolling
-- summaries, all written in the window, lists n(n+1)/2 causes. The walk up follows only
-- entries at or below an event in the window (diff_reach), each step keeps $max_causes
-- entries a start (in id order; `cut` marks a step that dropped some), and each entry gives
-- at most $max_causes of its events (earliest first). The kept causes are put in seq order by
-- sorting each list (a struct sorts by its first field, the unique seq), far cheaper than an
-- ordered aggregate. One JSON object a row (times in UTC with Z): far quicker to hand over than
-- nested structs.
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
seeds AS MATERIALIZED (
    SELECT DISTINCT n, id FROM (SELECT n, unnest(involved) AS id FROM changed) WHERE id IS NOT NULL
),
steps_up AS MATERIALIZED (
    SELECT e.src, e.dst FROM diff_edges e JOIN diff_reach r ON r.id = e.dst
),
up(start, id, depth, cut) AS (
    SELECT DISTINCT id, id, 0, false FROM seeds
    UNION
    SELECT start, id, depth, count(*) OVER (PARTITION BY start) > $max_causes FROM (
        SELECT DISTINCT up.start, s.dst AS id, up.depth + 1 AS depth
        FROM up JOIN steps_up s ON s.src = up.id
        WHERE up.depth < $max_steps
    )
    QUALIFY row_number() OVER (PARTITION BY start ORDER BY id) <= $max_causes
),
walk_cut AS (
    SELECT DISTINCT start FROM up WHERE cut
    UNION
    SELECT DISTINCT up.start FROM up JOIN steps_up s ON s.src = up.id WHERE up.depth = $max_steps
),
reached AS (
    SELECT s.n, u.id, min(u.depth) AS depth
    FROM seeds s JOIN up u ON u.start = s.id
    GROUP BY s.n, u.id
),
window_events AS (
    SELECT seq, actor, op, memory_id, batch, reason,
        strftime("at", CASE WHEN epoch_us("at") % 1000000 = 0 THEN '%Y-%m-%dT%H:%M:%SZ'
                            ELSE '%Y-%m-%dT%H:%M:%S.%fZ' END) AS "at",
        count(*) OVER (PARTITION BY memory_id) AS of_entry
    FROM versions
    WHERE "at" > $t1 AND "at" <= $t2
    QUALIFY row_number() OVER (PARTITION BY memory_id ORDER BY seq) <= $max_causes
),
ranked AS (
    SELECT r.n, w.*, w.of_entry > $max_causes AS entry_cut,
        row_number() OVER (PARTITION BY r.n ORDER BY r.depth, w.seq) AS rank
    FROM reached r JOIN window_events w ON w.memory_id = r.id
),
causes AS (
    SELECT n,
        list_sort(list({'seq': seq, 'at': "at", 'actor': actor, 'op': op,
                        'memory_id': memory_id, 'batch': batch, 'reason': reason})
                  FILTER (WHERE rank <= $max_causes)) AS causes,
        max(rank) > $max_causes OR bool_or(entry_cut) AS cut
    FROM ranked
    GROUP BY n
),
row_cut AS (
    SELECT DISTINCT s.n FROM seeds s JOIN walk_cut w ON w.start = s.id
)
SELECT to_json({
    'scope': c.scope, 'entity': c.entity, 'attribute': c.attribute,
    'before': CASE WHEN c.before_id IS NOT NULL
                   THEN {'memory_id': c.before_id, 'value': c.before_value} END,
    'after': CASE WHEN c.after_id IS NOT NULL
                  THEN {'memory_id': c.after_id, 'value': c.after_value} END,
    'markers_before': c.markers_before, 'markers_after': c.markers_after,
    'causes': coalesce(k.causes, []),
    'causes_truncated': coalesce(k.cut, false) OR rc.n IS NOT NULL})::VARCHAR
FROM changed c
LEFT JOIN causes k ON k.n = c.n
LEFT JOIN row_cut rc ON rc.n = c.n
ORDER BY c.n

-- name: diff_erased
-- The erase events in the window (t1, t2] and their certificates: erasure takes an entry out of
-- every time, so what it held is on neither side of the diff, and the diff says so.
SELECT count(*), coalesce(list(DISTINCT certificate ORDER BY certificate)
                          FILTER (WHERE certificate IS NOT NULL), [])
FROM versions
WHERE op = 'erase' AND "at" > $t1 AND "at" <= $t2
