-- Problems of the entry states in `staged` (DESIGN §2.2): the first reason per line.
SELECT line_no, seq, problem FROM (
    SELECT line_no, seq,
        CASE
            WHEN erased IS NOT NULL THEN NULL
            WHEN s.id IS DISTINCT FROM memory_id THEN 'body.after.id does not match memory_id'
            WHEN op = 'erase' AND (s.status IS DISTINCT FROM 'erased' OR s.certificate IS NULL)
                THEN 'an erase event needs body.after.status "erased" and a certificate'
            WHEN op = 'erase' THEN NULL
            WHEN s.status = 'erased' THEN 'status "erased" is only written by an erase event'
            WHEN s.entity IS NULL OR s.entity = '' THEN 'field "body.after.entity" is missing or empty'
            WHEN s.attribute IS NULL OR s.attribute = ''
                THEN 'field "body.after.attribute" is missing or empty'
            WHEN s.kind IS NULL OR NOT list_contains($kinds, s.kind)
                THEN 'field "body.after.kind" is missing or not one of observation, claim, inference, summary'
            WHEN s.status IS NULL OR NOT list_contains($statuses, s.status)
                THEN 'field "body.after.status" is missing or unknown'
            WHEN s.layer IS NOT NULL AND NOT list_contains($layers, s.layer)
                THEN 'field "body.after.layer" is not episodic, semantic or procedural'
            WHEN s.source IS NULL OR NOT regexp_full_match(s.source, $source_re, 's')
                THEN 'field "body.after.source" is missing or not class:id (user, operator, system, agent, tool, document, web)'
            WHEN s.authority IS NOT NULL AND json_type(s.authority) NOT IN ('UBIGINT', 'BIGINT', 'NULL')
                THEN 'field "body.after.authority" is not an integer'
            WHEN s.confidence IS NOT NULL AND (json_type(s.confidence) NOT IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'NULL')
                 OR s.confidence::DOUBLE NOT BETWEEN 0 AND 1)
                THEN 'field "body.after.confidence" is not a number from 0 to 1'
            WHEN s.observed_at IS NULL OR NOT regexp_full_match(s.observed_at, $rfc3339)
                THEN 'field "body.after.observed_at" is missing or not an RFC 3339 time'
            WHEN s.valid_from IS NOT NULL AND NOT regexp_full_match(s.valid_from, $rfc3339)
                THEN 'field "body.after.valid_from" is not an RFC 3339 time'
            WHEN s.valid_to IS NOT NULL AND NOT regexp_full_match(s.valid_to, $rfc3339)
                THEN 'field "body.after.valid_to" is not an RFC 3339 time'
            WHEN s.expires_at IS NOT NULL AND NOT regexp_full_match(s.expires_at, $rfc3339)
                THEN 'field "body.after.expires_at" is not an RFC 3339 time'
            WHEN s.justification IS NOT NULL AND json_type(s.justification) NOT IN ('ARRAY', 'NULL')
                THEN 'field "body.after.justification" is not a list of ids'
            WHEN s.tags IS NOT NULL AND json_type(s.tags) NOT IN ('ARRAY', 'NULL')
                THEN 'field "body.after.tags" is not a list of strings'
        END AS problem
    FROM staged
)
WHERE problem IS NOT NULL
ORDER BY line_no
