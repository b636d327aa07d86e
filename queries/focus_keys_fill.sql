-- The keys a plan may change (beliefs_in(…, true) looks only at these).
INSERT INTO focus_keys
SELECT DISTINCT unnest($entities::VARCHAR[]) AS entity, unnest($attributes::VARCHAR[]) AS attribute
