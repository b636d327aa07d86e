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
