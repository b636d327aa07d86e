-- The Beliefs screen's rows: the view's belief table, narrowed by a filter text that may
-- match the key, the value, the source, the id or the scope, renumbered from 0 for paging.
-- row_key identifies a row (an entry wins at most one row per context); marks are badges.
CREATE OR REPLACE TABLE tui_beliefs AS
SELECT row_number() OVER (ORDER BY pos) - 1 AS vpos,
    memory_id || chr(31) || scope AS row_key,
    concat(CASE WHEN list_contains(markers, 'contested') THEN '⚑' END,
           CASE WHEN list_contains(markers, 'claim_disagrees') THEN 'C' END,
           CASE WHEN list_contains(markers, 'inference_disagrees') THEN 'I' END,
           CASE WHEN list_contains(markers, 'vetoed_newer') THEN 'V' END,
           CASE WHEN len(overridden_in) > 0 THEN '↓' END,
           CASE WHEN belief_scope <> scope THEN '↑' END) AS marks,
    *
FROM beliefs
WHERE entity ILIKE $pattern ESCAPE '\' OR attribute ILIKE $pattern ESCAPE '\'
   OR value::VARCHAR ILIKE $pattern ESCAPE '\' OR source ILIKE $pattern ESCAPE '\'
   OR memory_id ILIKE $pattern ESCAPE '\' OR scope ILIKE $pattern ESCAPE '\' 
