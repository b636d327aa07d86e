-- The belief table of the current view, position-numbered for paging (pos BETWEEN).
CREATE OR REPLACE TABLE beliefs AS
SELECT row_number() OVER (ORDER BY entity, attribute, scope) AS pos, *
FROM beliefs_in($tk, $tv, $ctx, false)
