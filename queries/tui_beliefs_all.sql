-- The Beliefs screen's rows for one view, numbered from 0: row_key identifies a row (an
-- entry wins at most one row per context), marks are badges, haystack is what the filter
-- searches (lower-cased once here, so a keystroke is one contains() scan).
CREATE OR REPLACE TABLE tui_all AS
SELECT pos - 1 AS vpos,
    memory_id || chr(31) || scope AS row_key,
    concat(CASE WHEN list_contains(markers, 'contested') THEN '⚑' END,
           CASE WHEN list_contains(markers, 'claim_disagrees') THEN 'C' END,
           CASE WHEN list_contains(markers, 'inference_disagrees') THEN 'I' END,
           CASE WHEN list_contains(markers, 'vetoed_newer') THEN 'V' END,
           CASE WHEN len(overridden_in) > 0 THEN '↓' END,
           CASE WHEN belief_scope <> scope THEN '↑' END) AS marks,
    lower(concat_ws(chr(31), memory_id, entity, attribute, value::VARCHAR, source, scope)) AS haystack,
    *
FROM beliefs
