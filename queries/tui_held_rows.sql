-- The Review screen: the held queue, oldest hold first, numbered from 0.
CREATE OR REPLACE TABLE tui_held AS
SELECT row_number() OVER (ORDER BY seq) - 1 AS vpos, memory_id, held_reason, entity, attribute,
    value, source, scope, observed_at, "at" AS held_at, actor
FROM entries WHERE status = 'held'
