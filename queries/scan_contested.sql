-- belief.contested: beliefs of the current view marked contested.
SELECT memory_id, scope, entity, attribute, contested_ids FROM beliefs
WHERE list_contains(markers, 'contested') ORDER BY entity, attribute, scope
