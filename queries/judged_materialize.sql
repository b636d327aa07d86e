-- The view's judged entries, sorted by key so that per-key lookups skip row groups.
CREATE OR REPLACE TABLE judged AS
SELECT * FROM judged_at($tk) ORDER BY entity, attribute, scope, memory_id
