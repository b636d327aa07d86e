-- DESIGN §3.4: why an entry is not a candidate in context ctx, the first reason that applies,
-- or NULL when it is a candidate (the outranked:* reasons need the winner, see rivals.sql).
CREATE OR REPLACE MACRO pre_reason(status, kind, scope, observed_at, valid_from, valid_to,
                                   supported, ctx, tk, tv) AS
CASE
    WHEN status <> 'active' THEN 'status:' || status
    WHEN kind = 'claim' THEN 'kind:claim'
    WHEN kind = 'inference' THEN 'kind:inference'
    WHEN NOT visible(scope, ctx) THEN 'out_of_scope'
    WHEN observed_at > tk THEN 'not_yet_known'
    WHEN tv < coalesce(valid_from, observed_at) THEN 'not_yet_valid'
    WHEN valid_to IS NOT NULL AND tv >= valid_to THEN 'validity_ended'
    WHEN kind = 'summary' AND NOT supported THEN 'unsupported_summary'
END
