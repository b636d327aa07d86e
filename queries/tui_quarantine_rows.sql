-- The Quarantine screen: quarantined entries with the batch, operator, time and reason of the
-- event that quarantined them, newest first.
CREATE OR REPLACE TABLE tui_quarantine AS
SELECT row_number() OVER (ORDER BY seq DESC) - 1 AS vpos, memory_id, entity, attribute, value,
    scope, batch, actor, "at" AS quarantined_at, reason
FROM entries WHERE status = 'quarantined'
