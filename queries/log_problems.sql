-- Envelope problems of the lines in `raw` (DESIGN §2.1, §7): the first reason per line.
-- Structure only: digests are audit's (audit.py checks they are hex and that they match).
-- $first_line is the line number of the first line in raw, $prev_seq the seq before it,
-- $chained_before whether a chained line came before it.
WITH first_chained AS (
    SELECT min(line_no) AS line_no FROM raw WHERE prev IS NOT NULL
), judged AS (
    SELECT r.line_no, r.parse_error, r."at", r.actor, r.op, r.memory_id, r.body, r.body_digest,
        r.prev, r.hash,
        CASE WHEN json_type(r.seq) IN ('UBIGINT', 'BIGINT') THEN r.seq::BIGINT END AS seq,
        $prev_seq + r.line_no - $first_line + 1 AS expected,
        ($chained_before OR r.line_no > coalesce(f.line_no, r.line_no)) AS after_chained
    FROM raw r, first_chained f
)
SELECT line_no, seq, problem FROM (
    SELECT line_no, seq,
        CASE
            WHEN parse_error IS NOT NULL THEN parse_error
            WHEN seq IS NULL THEN 'field "seq" is missing or not an integer'
            WHEN seq < expected THEN 'seq ' || seq || ' repeats or goes back (expected ' || expected || ')'
            WHEN seq > expected THEN 'seq gap: expected ' || expected || ', found ' || seq
            WHEN "at" IS NULL OR NOT regexp_full_match("at", $rfc3339)
                THEN 'field "at" is missing or not an RFC 3339 time'
            WHEN actor IS NULL OR NOT regexp_full_match(actor, '[a-z][a-z0-9_-]*:\S+')
                THEN 'field "actor" is missing or not of the form class:id'
            WHEN op IS NULL OR NOT list_contains($ops, op) THEN 'field "op" is missing or unknown'
            WHEN memory_id IS NULL OR memory_id = '' THEN 'field "memory_id" is missing or empty'
            WHEN body IS NULL THEN 'field "body" is missing or not an object'
            WHEN body_digest IS NULL OR length(body_digest) <> 64
                THEN 'field "body_digest" is missing or not a SHA-256'
            WHEN (prev IS NULL) <> (hash IS NULL) THEN 'fields "prev" and "hash" must come together'
            WHEN prev IS NOT NULL AND (length(prev) <> 64 OR length(hash) <> 64)
                THEN 'fields "prev" and "hash" must be SHA-256 digests'
            WHEN prev IS NULL AND after_chained THEN 'unchained line after a chained one'
            WHEN body.erased IS NOT NULL THEN NULL
            WHEN body.after IS NULL OR json_type(body.after) <> 'OBJECT'
                THEN 'field "body.after" is missing or not an object'
        END AS problem
    FROM judged
)
WHERE problem IS NOT NULL
ORDER BY line_no
