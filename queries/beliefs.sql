-- A view's beliefs: the judged entries and the belief table materialized from the macros,
-- and what reads them (pages, rivals of one key, conflicts, a plan's belief diff).

-- name: at_head
-- Whether $tk is at or after every event's `at` (the state as of $tk is then `entries`): the
-- `now` every statement that judges the store passes to its macros (macros.sql, state_at).
SELECT $tk IS NOT NULL AND coalesce($tk >= max("at"), true) FROM versions

-- name: judged_range_starts
-- The first key of each range of about $size judged entries after the first range, in key
-- order: a key starts a range when the entries of the keys before it reach the next multiple
-- of $size (a key is never split). None when every entry fits one range.
WITH per_key AS (
    SELECT entity, attribute, count(*) AS n FROM state_at($tk, $now) GROUP BY entity, attribute
), placed AS (
    SELECT entity, attribute,
        (sum(n) OVER (ORDER BY entity, attribute ROWS UNBOUNDED PRECEDING) - n) // $size AS range_no
    FROM per_key
)
SELECT entity, attribute FROM placed WHERE range_no > 0
QUALIFY row_number() OVER (PARTITION BY range_no ORDER BY entity, attribute) = 1
ORDER BY entity, attribute

-- name: judged_empty
CREATE OR REPLACE TABLE judged AS FROM judged LIMIT 0

-- name: judged_add_range
-- The judged entries of one range of keys (`support` filled first), sorted by key: the
-- ranges added in key order leave the table sorted, so that per-key lookups skip row groups.
INSERT INTO judged
SELECT * FROM judged_in_range($tk, $now, $lo_entity, $lo_attribute, $hi_entity, $hi_attribute)
ORDER BY entity, attribute, scope, memory_id

-- name: beliefs_empty
CREATE OR REPLACE TABLE beliefs AS
SELECT 0::BIGINT AS pos, * FROM beliefs_in($tk, $tv, $ctx, false) LIMIT 0

-- name: beliefs_add_range
-- The beliefs of one range of keys, position-numbered after the $before rows of the ranges
-- before it (pos BETWEEN pages the table; the ranges come in key order).
INSERT INTO beliefs
SELECT $before + row_number() OVER (ORDER BY entity, attribute, scope) AS pos, *
FROM beliefs_in($tk, $tv, $ctx, false, lo_entity := $lo_entity, lo_attribute := $lo_attribute,
                hi_entity := $hi_entity, hi_attribute := $hi_attribute)
ORDER BY pos

-- name: beliefs_positions
SELECT min(pos), max(pos) FROM beliefs

-- name: beliefs_count
SELECT count(*) FROM beliefs

-- name: beliefs_page
-- One page of the view's belief table.
SELECT * FROM beliefs WHERE pos BETWEEN $first AND $last ORDER BY pos

-- name: rivals
-- Every entry about one key as judged in context $ctx, with the reason it is not the belief
-- (DESIGN §3.4), or 'belief' for the winner. The winner ordering is that of beliefs_in.
WITH keyed AS (
    SELECT *,
        pre_reason(status, kind, scope, observed_at, valid_from, valid_to, supported, $ctx, $tk, $tv)
            AS pre
    FROM judged
    WHERE entity = $entity AND attribute = $attribute
), win AS (
    SELECT * FROM keyed WHERE pre IS NULL
    ORDER BY eff_authority DESC, depth DESC, observed_at DESC, memory_id DESC
    LIMIT 1
)
SELECT k.memory_id, k.value, k.kind, k.source, k.scope, k.status, k.eff_authority AS authority,
    k.observed_at, k.valid_from, k.valid_to, k.supported,
    CASE
        WHEN k.memory_id = w.memory_id THEN 'belief'
        WHEN k.pre IS NOT NULL THEN k.pre
        WHEN k.eff_authority < w.eff_authority THEN 'outranked:authority'
        WHEN k.depth < w.depth THEN 'outranked:scope'
        ELSE 'outranked:recency'
    END AS reason
FROM keyed k
LEFT JOIN win w ON true
ORDER BY k.memory_id = w.memory_id DESC NULLS LAST, k.eff_authority DESC, k.depth DESC,
    k.observed_at DESC, k.memory_id DESC

-- name: conflicts
-- Each marker of the view's belief table with the belief and the entries that cause it.
SELECT scope, entity, attribute, marker,
    list_prepend(memory_id, CASE marker
        WHEN 'contested' THEN contested_ids
        WHEN 'claim_disagrees' THEN claim_ids
        WHEN 'inference_disagrees' THEN inference_ids
        ELSE vetoed_ids END) AS memory_ids
FROM (SELECT *, unnest(markers) AS marker FROM beliefs)
ORDER BY entity, attribute, scope, marker

-- name: focus_keys_clear
DELETE FROM focus_keys

-- name: focus_keys_fill
-- The keys a plan may change, or `show` judges (beliefs_in(…, true) looks only at these).
INSERT INTO focus_keys
SELECT DISTINCT unnest($entities::VARCHAR[]) AS entity, unnest($attributes::VARCHAR[]) AS attribute

-- name: focus_ids_clear
DELETE FROM focus_ids

-- name: focus_ids_fill
-- Every entry that ever held a focus key, and everything those rest on by the justification
-- of any of their versions: a superset of what judging the focus keys as of any time needs
-- (whether a summary is supported, and its effective authority, depend on its ancestors only).
-- The citations are gathered once, then walked by a join: a walk that probed every version
-- each round (`IN` the ids found so far) cost a chain's length times the store (23 s for a
-- chain of 20,000 summaries; 0.3 s now).
INSERT INTO focus_ids
WITH RECURSIVE cites AS MATERIALIZED (
    SELECT DISTINCT memory_id AS src, unnest(justification) AS dst FROM versions
    WHERE len(justification) > 0
), up(memory_id) AS (
    SELECT memory_id FROM focus_key_entries
    UNION
    SELECT c.dst FROM cites c JOIN up ON c.src = up.memory_id
)
SELECT memory_id FROM up

-- name: focus_ids_fill_cited
-- focus_ids_fill walking version_cites instead of every version's justification (a belief
-- patch, which holds the store's lock, brings version_cites up to date first).
INSERT INTO focus_ids
WITH RECURSIVE up(memory_id) AS (
    SELECT memory_id FROM focus_key_entries
    UNION
    SELECT c.dst FROM version_cites c JOIN up ON c.src = up.memory_id
)
SELECT memory_id FROM up

-- name: focus_version_rows_clear
DELETE FROM focus_version_rows

-- name: focus_version_rows_fill
INSERT INTO focus_version_rows
SELECT * FROM versions_judged WHERE memory_id IN (SELECT memory_id FROM focus_ids)

-- name: focus_version_rows_private
CREATE OR REPLACE TEMP TABLE focus_version_rows AS
SELECT * FROM versions_judged WHERE memory_id IN (SELECT memory_id FROM focus_ids)

-- name: judged_materialize_focus
-- `judged` for the focus keys only (their entries and what those rest on), as of $tk.
CREATE OR REPLACE TABLE judged AS
SELECT * FROM judged_at_focus($tk) ORDER BY entity, attribute, scope, memory_id

-- name: focus_keys_private
-- A connection's own focus tables and `judged` (TEMP: for this connection they hide the
-- shared ones, which every macro and view then reads in their place): a reader judges keys
-- beside a thread that rebuilds or patches the shared tables, writing nothing it reads.
CREATE OR REPLACE TEMP TABLE focus_keys (entity VARCHAR, attribute VARCHAR)

-- name: focus_ids_private
CREATE OR REPLACE TEMP TABLE focus_ids (memory_id VARCHAR)

-- name: judged_materialize_focus_private
CREATE OR REPLACE TEMP TABLE judged AS
SELECT * FROM judged_at_focus($tk) ORDER BY entity, attribute, scope, memory_id

-- name: changed_between
-- Entries whose judgement may differ between knowledge times $since and $tk with nothing
-- else appended: an event, an observation, a validity start or end falling between them.
-- One select per time, not one OR of the four: each is then a range filter on one column,
-- which DuckDB applies to the compressed blocks (seconds apart, at 5M events: 8 ms against
-- 50-60 ms; the same entries).
SELECT memory_id FROM versions WHERE "at" > $since AND "at" <= $tk
UNION SELECT memory_id FROM versions WHERE observed_at > $since AND observed_at <= $tk
UNION SELECT memory_id FROM versions WHERE valid_from > $since AND valid_from <= $tk
UNION SELECT memory_id FROM versions WHERE valid_to > $since AND valid_to <= $tk

-- name: cites_update
-- The citations of the versions loaded since version_cites was last brought up to date
-- (versions lie in seq order, so the seq filter skips what was read before).
INSERT INTO version_cites
SELECT DISTINCT memory_id, unnest(justification) FROM versions
WHERE seq > (SELECT seq FROM version_cites_seq) AND len(justification) > 0

-- name: cites_update_seq
UPDATE version_cites_seq SET seq = (SELECT coalesce(max(seq), 0) FROM versions)

-- name: focus_keys_of_ids
-- The keys of $ids and of every entry resting on them, transitively, by the justification of
-- any of their versions (so whatever a later or earlier version cites): the keys whose
-- beliefs changes to $ids can change.
INSERT INTO focus_keys
WITH RECURSIVE down(memory_id) AS (
    SELECT unnest($ids::VARCHAR[])
    UNION
    SELECT c.src FROM down JOIN version_cites c ON c.dst = down.memory_id
)
SELECT DISTINCT entity, attribute FROM versions
WHERE memory_id IN (SELECT memory_id FROM down) AND entity IS NOT NULL

-- name: focus_keys_count
SELECT count(*) FROM focus_keys

-- name: judged_patch_take
-- The focus keys judged again as of $tk (judged_at_focus: their entries and what they rest on),
-- into an empty `judged`: the belief patch reads the focus keys' entries alone.
INSERT INTO judged
SELECT * FROM judged_at_focus($tk)
WHERE (entity, attribute) IN (SELECT (entity, attribute) FROM focus_keys)

-- name: beliefs_patch_rows
-- The focus keys' rows of the belief table as of now (the patch puts them in place).
CREATE OR REPLACE TABLE patch_rows AS
SELECT * FROM beliefs_in($tk, $tv, $ctx, true)

-- name: macro_key_fence_every
-- How far apart key_places' fences are: a window is about twice this many rows (tests make it
-- small, so that small stores have many fences).
CREATE OR REPLACE MACRO key_fence_every() AS 256

-- name: macro_key_places
-- Where each focus key's rows lie in a table numbered first, first + 1, ... in key order
-- (column pos; `tbl` names the table or a view naming its column so), before it changes,
-- without reading the whole table: before_n, how many rows precede the key's place (the rows
-- of smaller keys), and old_n, how many rows the key has. Every key_fence_every()-th row is
-- a fence; the fences on either side of a key bound a window of positions that holds the
-- key's rows and the smaller keys' rows after the lower fence. The windows are read by
-- position (pos = p prunes by the table's min-max index), not compared key by key: a count of
-- the smaller keys over the whole belief table took 0.1-1.3 s at 1M events for 1-100 keys.
CREATE OR REPLACE MACRO key_places(tbl, first) AS TABLE
WITH n AS (SELECT coalesce(max(pos) + 1, first) AS past FROM query_table(tbl)),
fences AS (
    SELECT t.pos, t.entity, t.attribute
    FROM range(first, (SELECT past FROM n), key_fence_every()) g(p) JOIN query_table(tbl) t ON t.pos = g.p),
windows AS (
    SELECT k.entity, k.attribute, coalesce(lo.pos, first) AS lo,
        coalesce(hi.pos, (SELECT past FROM n)) AS hi
    FROM (SELECT DISTINCT entity, attribute FROM focus_keys) k
    ASOF LEFT JOIN fences lo ON (k.entity, k.attribute) > (lo.entity, lo.attribute)
    ASOF LEFT JOIN fences hi ON (k.entity, k.attribute) < (hi.entity, hi.attribute))
SELECT w.entity, w.attribute,
    (w.lo - first + count(t.pos) FILTER (WHERE (t.entity, t.attribute) < (w.entity, w.attribute)))::BIGINT
        AS before_n,
    count(t.pos) FILTER (WHERE t.entity = w.entity AND t.attribute = w.attribute) AS old_n
FROM (SELECT entity, attribute, lo, unnest(CASE WHEN hi > lo THEN range(lo, hi) ELSE [NULL] END) AS p
      FROM windows) w
LEFT JOIN query_table(tbl) t ON t.pos = w.p
GROUP BY w.entity, w.attribute, w.lo

-- name: patch_plan_create
-- The plan's table before the first patch, for the view and macros that read it.
CREATE TABLE IF NOT EXISTS patch_plan (entity VARCHAR, attribute VARCHAR, before_n BIGINT,
    old_n BIGINT, delta BIGINT, new_first BIGINT)

-- name: patch_new_positions_view
-- Where the focus keys' rows lie after a patch (the screens read them so, not by key).
CREATE OR REPLACE VIEW patch_new_positions AS
SELECT unnest(range(new_first, new_first + old_n + delta)) AS pos FROM patch_plan

-- name: macro_plan_of
-- Per focus key of a table numbered first, first + 1, ... in key order (`places` names it as
-- key_places reads it), from its place and its rows as they now are (`rows` names them,
-- the focus keys' rows alone): how many rows it gains (delta). A key's rows are contiguous in
-- the table's key order, so a row that is not a focus key's moves by the delta of every focus
-- key before it, and a focus key's rows start at new_first. Keys that tie on before_n (keys
-- with no row, side by side) are in key order, as the table is.
CREATE OR REPLACE MACRO plan_of(places, first, rows) AS TABLE
SELECT *, (before_n + first + coalesce(sum(delta) OVER (ORDER BY before_n, entity, attribute
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0))::BIGINT AS new_first
FROM (
    SELECT p.entity, p.attribute, p.before_n, p.old_n, coalesce(n.n, 0) - p.old_n AS delta
    FROM key_places(places, first) p
    LEFT JOIN (SELECT entity, attribute, count(*) AS n FROM query_table(rows)
               GROUP BY entity, attribute) n
        ON n.entity = p.entity AND n.attribute = p.attribute
)

-- name: macro_shift_ranges_of
-- The moves of a plan (plan_of) as ranges of a table's positions counted from its first
-- (offset = pos - first): a row at offset o with lo <= o < hi lies after the rows of every
-- focus key up to lo's and moves by shift (a row before every focus key does not move).
CREATE OR REPLACE MACRO shift_ranges_of(plan) AS TABLE
SELECT before_n AS lo,
    coalesce(lead(before_n) OVER w, 9223372036854775807) AS hi,
    sum(delta) OVER (w ROWS UNBOUNDED PRECEDING) AS shift
FROM query_table(plan)
WINDOW w AS (ORDER BY before_n, entity, attribute)

-- name: beliefs_patch_plan
-- The belief table's plan (plan_of; pos from 1).
CREATE OR REPLACE TABLE patch_plan AS SELECT * FROM plan_of('beliefs', 1, 'patch_rows')

-- name: patch_shift_ranges
-- Its moves: the belief table's row at pos p moves when lo < p <= hi.
CREATE OR REPLACE TABLE patch_shift AS SELECT * FROM shift_ranges_of('patch_plan')

-- name: beliefs_patch_forget
-- The focus keys' old rows, by position (the plan's places).
DELETE FROM beliefs
WHERE pos IN (SELECT unnest(range(before_n + 1, before_n + 1 + old_n)) FROM patch_plan)

-- name: patch_shift_moves
-- The ranges of patch_shift whose rows move, in position order (beliefs.shift); a range
-- between two focus keys with no row between them moves nothing.
SELECT lo, hi, shift FROM patch_shift WHERE shift <> 0 AND hi > lo ORDER BY lo

-- name: beliefs_shift_range
-- One range's move, its bounds constants, so that the scan prunes by the min-max index.
UPDATE beliefs SET pos = pos + $shift WHERE pos > $lo AND pos <= $hi

-- name: beliefs_patch_shift
-- Every range's move in one statement (a range join over the table): for many ranges.
UPDATE beliefs SET pos = pos + s.shift
FROM patch_shift s
WHERE s.shift <> 0 AND beliefs.pos > s.lo AND beliefs.pos <= s.hi

-- name: beliefs_patch_take
-- The focus keys' new rows, numbered from where their key now starts.
INSERT INTO beliefs
SELECT p.new_first + row_number() OVER (PARTITION BY r.entity, r.attribute ORDER BY r.scope) - 1
           AS pos, r.*
FROM patch_rows r JOIN patch_plan p ON p.entity = r.entity AND p.attribute = r.attribute

-- name: patch_rows_empty
-- Taken: the focus keys' rows (values included) are not kept in scratch after the patch, where
-- an erasure's reload would leave them (in memory, or in DuckDB's temporary files).
DELETE FROM patch_rows

-- name: beliefs_focus
-- The store-wide beliefs of the focus keys, from the judged entries (for a plan's belief diff).
SELECT scope, entity, attribute, memory_id, value FROM beliefs_in($tk, $tk, NULL, true)

-- name: unsupported_among
-- Which of the given summaries the belief rule would not support, in `support` as
-- stepwise.materialize left it (as one statement over support_at, a chain of summaries took
-- time quadratic in its length: 12,000 in one feed, 77 s to ingest; 0.85 s in parts).
SELECT memory_id FROM support WHERE NOT supported AND memory_id IN (SELECT unnest($ids::VARCHAR[]))

-- name: snapshot_meta_create
-- The belief snapshot (snapshot.py): what it was built for.
CREATE TABLE snapshot_target.snapshot_meta (format INTEGER, code VARCHAR, dev UBIGINT,
    ino UBIGINT, "offset" BIGINT, seq BIGINT, hash VARCHAR, line VARCHAR, scope VARCHAR,
    context VARCHAR, tk VARCHAR)

-- name: snapshot_meta_write
INSERT INTO snapshot_target.snapshot_meta VALUES ($format, $code, $dev, $ino, $offset, $seq,
    $hash, $line, $scope, $context, $tk)

-- name: snapshot_write_beliefs
CREATE TABLE snapshot_target.beliefs AS FROM beliefs

-- name: snapshot_meta_read
SELECT format, code, dev, ino, "offset", seq, hash, line, scope, context, tk
FROM snapshot_source.snapshot_meta

-- name: snapshot_take_beliefs
-- In the order materialize leaves it (beliefs_add_range).
CREATE OR REPLACE TABLE beliefs AS FROM snapshot_source.beliefs ORDER BY pos
