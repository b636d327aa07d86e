-- DESIGN §3: the beliefs of the judged entries (table `judged`, as of tk) at valid time tv.
-- ctx NULL: the store-wide table, one row per (S, entity, attribute) for every scope S that
-- holds an entry about the key, answering context S; otherwise one row per key for context
-- ctx. A key with no candidate has no row. focus: only the keys in focus_keys.
-- The winner is the greatest (effective authority, scope depth, observed_at, id); markers
-- name the entries that cause them.
CREATE OR REPLACE MACRO beliefs_in(tk, tv, ctx, focus) AS TABLE
WITH
keyed AS (
    SELECT * FROM judged
    WHERE NOT focus OR (entity, attribute) IN (SELECT (entity, attribute) FROM focus_keys)
),
contexts AS (
    SELECT DISTINCT entity, attribute, coalesce(ctx, scope) AS context FROM keyed
),
cand AS (
    SELECT c.context, j.*
    FROM contexts c
    JOIN keyed j ON j.entity = c.entity AND j.attribute = c.attribute
    WHERE j.status = 'active' AND j.kind IN ('observation', 'summary')
      AND pre_reason(j.status, j.kind, j.scope, j.observed_at, j.valid_from, j.valid_to,
                     j.supported, c.context, tk, tv) IS NULL
),
ranked AS (
    SELECT *,
        row_number() OVER w AS rk,
        count(*) OVER (PARTITION BY context, entity, attribute) AS candidates
    FROM cand
    WINDOW w AS (PARTITION BY context, entity, attribute
                 ORDER BY eff_authority DESC, depth DESC, observed_at DESC, memory_id DESC)
),
win AS (SELECT * FROM ranked WHERE rk = 1),
contested AS (
    SELECT w.context, w.entity, w.attribute, list(c.memory_id ORDER BY c.memory_id) AS ids
    FROM win w
    JOIN ranked c ON c.context = w.context AND c.entity = w.entity AND c.attribute = w.attribute
    WHERE c.rk > 1 AND c.eff_authority = w.eff_authority AND c.depth = w.depth
      AND c.value::VARCHAR IS DISTINCT FROM w.value::VARCHAR AND c.principal <> w.principal
      AND coalesce(c.valid_from, c.observed_at) < coalesce(w.valid_to, 'infinity'::TIMESTAMPTZ)
      AND coalesce(w.valid_from, w.observed_at) < coalesce(c.valid_to, 'infinity'::TIMESTAMPTZ)
    GROUP BY ALL
),
vetoed AS (
    SELECT w.context, w.entity, w.attribute, list(c.memory_id ORDER BY c.memory_id) AS ids
    FROM win w
    JOIN ranked c ON c.context = w.context AND c.entity = w.entity AND c.attribute = w.attribute
    WHERE c.rk > 1 AND c.observed_at > w.observed_at AND c.eff_authority < w.eff_authority
      AND c.value::VARCHAR IS DISTINCT FROM w.value::VARCHAR
    GROUP BY ALL
),
disagree AS (
    SELECT w.context, w.entity, w.attribute,
        list(j.memory_id ORDER BY j.memory_id) FILTER (WHERE j.kind = 'claim') AS claim_ids,
        list(j.memory_id ORDER BY j.memory_id) FILTER (WHERE j.kind = 'inference') AS inference_ids
    FROM win w
    JOIN keyed j ON j.entity = w.entity AND j.attribute = w.attribute
    WHERE j.kind IN ('claim', 'inference') AND j.status IN ('active', 'held')
      AND visible(j.scope, w.context) AND j.observed_at <= tk
      AND coalesce(j.valid_from, j.observed_at) <= tv AND (j.valid_to IS NULL OR tv < j.valid_to)
      AND j.value::VARCHAR IS DISTINCT FROM w.value::VARCHAR
    GROUP BY ALL
),
marked AS (
    SELECT w.context AS scope, w.scope AS belief_scope, w.entity, w.attribute, w.value,
        w.memory_id, w.kind, w.source, w.eff_authority AS authority, w.observed_at,
        w.candidates,
        coalesce(ct.ids, []) AS contested_ids,
        coalesce(d.claim_ids, []) AS claim_ids,
        coalesce(d.inference_ids, []) AS inference_ids,
        coalesce(vt.ids, []) AS vetoed_ids
    FROM win w
    LEFT JOIN contested ct USING (context, entity, attribute)
    LEFT JOIN vetoed vt USING (context, entity, attribute)
    LEFT JOIN disagree d USING (context, entity, attribute)
)
SELECT m.*,
    list_filter([CASE WHEN len(m.contested_ids) > 0 THEN 'contested' END,
                 CASE WHEN len(m.claim_ids) > 0 THEN 'claim_disagrees' END,
                 CASE WHEN len(m.inference_ids) > 0 THEN 'inference_disagrees' END,
                 CASE WHEN len(m.vetoed_ids) > 0 THEN 'vetoed_newer' END], lambda x: x IS NOT NULL)
        AS markers,
    coalesce((SELECT list(n.scope ORDER BY n.scope) FROM marked n
              WHERE n.entity = m.entity AND n.attribute = m.attribute
                AND n.scope <> m.scope AND visible(m.scope, n.scope)
                AND n.memory_id <> m.memory_id), []) AS overridden_in
FROM marked m
