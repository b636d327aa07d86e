-- Entries as actions and `show` read them: current state, history, the held queue, what a
-- selector matches, and where a quarantine came from (for release).

-- name: entry_state
-- One current entry: its stored state verbatim, and its key and scope.
SELECT state, entity, attribute, scope, status FROM entries WHERE memory_id = $id

-- name: entry_states_of
-- The stored states of the entries among $ids (a feed's ids, fetched at once: one query a
-- line cost 2 ms each, 47 s for a 20,000-line feed).
SELECT memory_id, state FROM entries WHERE memory_id IN (SELECT unnest($ids::VARCHAR[]))

-- name: entry_events
-- The events of one entry, oldest first.
SELECT seq, "at", actor, op, reason, batch, status, value, redacted
FROM versions WHERE memory_id = $id ORDER BY seq

-- name: entry_malformed
-- Why the entry's current state breaks the entry contract (NULL when it does not).
SELECT malformed FROM entries WHERE memory_id = $id

-- name: held_entries
-- The held queue after seq $after, oldest hold first (an entry's seq is its last event's, so
-- no two are equal: entries.each_held goes on from the last it gave after running it again).
SELECT seq, state FROM entries WHERE status = 'held' AND seq > $after ORDER BY seq

-- name: audit_counts
-- Events loaded and bodies replaced by erasure.
SELECT count(*) AS events, count(*) FILTER (WHERE redacted) AS redacted FROM versions

-- name: action_entries
-- Current state of the named entries (for a plan).
SELECT memory_id, status, scope, entity, attribute, state
FROM entries WHERE memory_id IN (SELECT unnest($ids::VARCHAR[]))
ORDER BY memory_id

-- name: action_select
-- Entries a selector matches (DESIGN §5): exact source, source principal, or due to expire;
-- only inside $scope when one is given. Erased entries have no key and match nothing.
SELECT memory_id FROM entries
WHERE entity IS NOT NULL
  AND ($source IS NULL OR source = $source)
  AND ($principal IS NULL OR principal = $principal)
  AND (NOT $due OR (status = 'active' AND expires_at IS NOT NULL AND expires_at <= $now))
  AND ($scope IS NULL OR $scope = '' OR scope = $scope OR starts_with(scope, $scope || '/'))
ORDER BY memory_id

-- name: scope_holds
-- Whether any entry (erased or not) lies inside $scope: a --scope whose segment begins or
-- ends with a blank is taken only when one does (model.scope_blank_error).
SELECT EXISTS (SELECT 1 FROM entries WHERE scope = $scope OR starts_with(scope, $scope || '/'))

-- name: quarantine_origin
-- For quarantined entries: the batch of their last quarantine event and the status they had
-- before it (what release restores).
WITH q AS (
    SELECT memory_id, max(seq) AS seq FROM versions
    WHERE op = 'quarantine' AND memory_id IN (SELECT unnest($ids::VARCHAR[]))
    GROUP BY memory_id
)
SELECT q.memory_id, v.batch,
    (SELECT p.status FROM versions p WHERE p.memory_id = q.memory_id AND p.seq < q.seq
     ORDER BY p.seq DESC LIMIT 1) AS before_status
FROM q JOIN versions v ON v.memory_id = q.memory_id AND v.seq = q.seq
ORDER BY q.memory_id

-- name: batch_members
-- Entries whose last quarantine event belongs to one of $batches (release --cascade).
SELECT memory_id, batch FROM (
    SELECT memory_id, arg_max(batch, seq) AS batch FROM versions WHERE op = 'quarantine'
    GROUP BY memory_id
) WHERE batch IN (SELECT unnest($batches::VARCHAR[]))
ORDER BY memory_id

-- name: reverts_after_batch
-- The revert events on a batch's entries after its last event, with their own batch: those
-- that may revert it (which one a revert reverts is in its body, read from the log).
SELECT w.seq, w.batch FROM versions w
WHERE w.op = 'revert'
  AND w.seq > (SELECT max(seq) FROM versions WHERE batch = $batch)
  AND w.memory_id IN (SELECT memory_id FROM versions WHERE batch = $batch)
ORDER BY w.seq

-- name: revert_batch_events
-- The events of one batch, each with the seq of its entry's latest event (revert refuses an
-- entry that changed after the batch).
SELECT v.seq, v.memory_id, v.op,
    (SELECT max(w.seq) FROM versions w WHERE w.memory_id = v.memory_id) AS last_seq
FROM versions v WHERE v.batch = $batch ORDER BY v.seq
