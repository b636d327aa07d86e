-- A view's beliefs: the judged entries and the belief table materialized from the macros,
-- and what reads them (pages, rivals of one key, conflicts, a plan's belief diff).

-- name: judged_materialize
-- The view's judged entries, sorted by key so that per-key lookups skip row groups.
CREATE OR REPLACE TABLE judged AS
SELECT * FROM judged_at($tk) ORDER BY entity, attribute, scope, memory_id

-- name: beliefs_materialize
-- The belief table of the current view, position-numbered for paging (pos BETWEEN).
CREATE OR REPLACE TABLE beliefs AS
SELECT row_number() OVER (ORDER BY entity, attribute, scope) AS pos, *
FROM beliefs_in($tk, $tv, $ctx, false)

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

-- name: focus_keys_fill
-- The keys a plan may change (beliefs_in(…, true) looks only at these).
INSERT INTO focus_keys
SELECT DISTINCT unnest($entities::VARCHAR[]) AS entity, unnest($attributes::VARCHAR[]) AS attribute

-- name: beliefs_focus
-- The store-wide beliefs of the focus keys, from the judged entries (for a plan's belief diff).
SELECT scope, entity, attribute, memory_id, value FROM beliefs_in($tk, $tk, NULL, true)

-- name: unsupported_among
-- Which of the given summaries the belief rule would not support as of $tk.
SELECT memory_id FROM support_at($tk)
WHERE NOT supported AND memory_id IN (SELECT unnest($ids::VARCHAR[]))
