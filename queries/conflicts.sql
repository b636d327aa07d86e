-- Each marker of the view's belief table with the belief and the entries that cause it.
SELECT scope, entity, attribute, marker,
    list_prepend(memory_id, CASE marker
        WHEN 'contested' THEN contested_ids
        WHEN 'claim_disagrees' THEN claim_ids
        WHEN 'inference_disagrees' THEN inference_ids
        ELSE vetoed_ids END) AS memory_ids
FROM (SELECT *, unnest(markers) AS marker FROM beliefs)
ORDER BY entity, attribute, scope, marker
