-- The rows whose key, value, source, id or scope contain the filter text, renumbered from 0.
CREATE OR REPLACE TABLE tui_filtered AS
SELECT row_number() OVER (ORDER BY vpos) - 1 AS vpos, * EXCLUDE (vpos)
FROM tui_all WHERE contains(haystack, $needle)
