-- The Conflicts screen: one row per marker of the view's beliefs.
CREATE OR REPLACE TABLE tui_conflicts AS
SELECT row_number() OVER (ORDER BY entity, attribute, scope, marker) - 1 AS vpos,
    memory_id || chr(31) || scope || chr(31) || marker AS row_key, * FROM (
    SELECT scope, entity, attribute, marker, memory_id,
        CASE marker WHEN 'contested' THEN contested_ids WHEN 'claim_disagrees' THEN claim_ids
             WHEN 'inference_disagrees' THEN inference_ids ELSE vetoed_ids END AS causes,
        value
    FROM (SELECT *, unnest(markers) AS marker FROM beliefs)
)
