-- Under a --scope filter the loaded versions have gaps in seq: number them for paging.
CREATE OR REPLACE TABLE tui_log AS
SELECT row_number() OVER (ORDER BY seq) - 1 AS vpos, seq, "at", actor, op, memory_id, batch,
    reason, status, redacted, hash
FROM versions
