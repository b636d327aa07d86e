-- The record of what happened: the log as a list of events (`audit --log`), and what the
-- incident report (`report`) reads besides the belief diff — the held queue, the actions
-- taken, the certificates, the entries a lineage picture draws, and what masking needs.

-- name: audit_log
-- The events, oldest first, with "at" in [$since, $until] and about $memory (each filter
-- NULL: no filter). A body replaced by erasure has no reason any more.
SELECT seq, "at", actor, op, memory_id, batch, reason
FROM versions
WHERE ($since IS NULL OR "at" >= $since) AND ($until IS NULL OR "at" <= $until)
  AND ($memory IS NULL OR memory_id = $memory)
ORDER BY seq

-- name: audit_log_known
-- Whether any event of the log names the id.
SELECT count(*) > 0 FROM known_ids WHERE memory_id = $id

-- name: report_first_event
-- When the log starts (NULL for an empty log).
SELECT min("at") FROM versions

-- name: report_held_queue
-- The held queue as of $tk: how many, and the one held longest (since its last hold event).
WITH held AS (
    SELECT s.memory_id,
        coalesce((SELECT max(h."at") FROM versions h
                  WHERE h.memory_id = s.memory_id AND h.op = 'hold' AND h."at" <= $tk), s."at")
            AS held_since
    FROM state_at($tk, $now) s
    WHERE s.status = 'held'
)
SELECT count(*) AS held, arg_min(memory_id, (held_since, memory_id)) AS oldest_id,
    min(held_since) AS oldest_since
FROM held

-- name: report_actions
-- The curation actions with "at" in ($since, $until]: one row per batch (an event written
-- without a batch is a row of its own), oldest first, with its operator, reason and counts.
SELECT batch, min(seq) AS first_seq, max(seq) AS last_seq, min("at") AS "at",
    any_value(actor ORDER BY seq) AS actor, any_value(op ORDER BY seq) AS op,
    any_value(reason ORDER BY seq) AS reason, count(*) AS events,
    list(DISTINCT memory_id ORDER BY memory_id) AS memory_ids,
    list(DISTINCT status ORDER BY status) AS statuses
FROM versions
WHERE op IN ('approve', 'reject', 'quarantine', 'release', 'retract', 'expire', 'revert', 'erase')
  AND "at" > $since AND "at" <= $until
GROUP BY batch, CASE WHEN batch IS NULL THEN seq END
ORDER BY first_seq

-- name: report_certificates
-- Certificates of erasures with "at" in ($since, $until] (ids only).
SELECT DISTINCT certificate FROM versions
WHERE op = 'erase' AND certificate IS NOT NULL AND "at" > $since AND "at" <= $until
ORDER BY certificate

-- name: report_nodes
-- What a lineage picture labels each entry with: its key, kind, status and source.
SELECT memory_id, entity, attribute, kind, status, source, scope FROM entries
WHERE memory_id = ANY($ids::VARCHAR[])

-- name: masking_fields
-- What decides whether an entry's value is shown masked: held_reason, sensitivity, the value.
SELECT memory_id, held_reason, sensitivity, value FROM entries
WHERE memory_id = ANY($ids::VARCHAR[])
