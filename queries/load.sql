-- Loading the log: lines into `raw` (the fast read of the whole file, or numbered lines),
-- their problems, then `staged` -> versions -> entries and edges, then the --scope filter.

-- name: read_log
-- The fast path: the whole log in one parallel read, envelope fields typed loosely so that
-- log_problems can judge them; bad lines become NULL rows (ignore_errors), never skipped rows.
CREATE OR REPLACE TABLE raw_file AS
SELECT *
FROM read_json($path,
    format = 'newline_delimited',
    ignore_errors = true,
    maximum_object_size = 268435456,
    columns = {
        'seq': 'JSON', 'at': 'VARCHAR', 'actor': 'VARCHAR', 'op': 'VARCHAR',
        'memory_id': 'VARCHAR', 'batch': 'VARCHAR',
        'body': 'STRUCT(after JSON, reason VARCHAR, erased VARCHAR)',
        'body_digest': 'VARCHAR', 'prev': 'VARCHAR', 'hash': 'VARCHAR'
    })

-- name: raw_file_count
SELECT count(*) FROM raw_file

-- name: raw_file_drop_torn
-- A torn last line read by the fast path: not an event.
DELETE FROM raw_file WHERE rowid >= $n

-- name: raw_view_file
-- Rows of raw_file are in file order, so rowid + 1 is the line number.
CREATE OR REPLACE VIEW raw AS
SELECT rowid + 1 AS line_no, NULL::VARCHAR AS parse_error, *
FROM raw_file

-- name: raw_lines
-- Numbered lines handed over by Python (a tail of the log, or the whole log when the fast
-- path found a problem and exact line numbers are needed). A NULL text was not UTF-8.
CREATE OR REPLACE TABLE raw_lines AS
SELECT unnest($line_nos::BIGINT[]) AS line_no, unnest($texts::VARCHAR[]) AS text

-- name: raw_parse_lines
-- The same shape as raw_file, parsed from numbered lines, with the reason a line is not JSON.
CREATE OR REPLACE TABLE raw_parsed AS
SELECT line_no, parse_error, unnest(json_transform(CASE WHEN parse_error IS NULL THEN text END,
    '{"seq": "JSON", "at": "VARCHAR", "actor": "VARCHAR", "op": "VARCHAR", "memory_id": "VARCHAR",
      "batch": "VARCHAR", "body": {"after": "JSON", "reason": "VARCHAR", "erased": "VARCHAR"},
      "body_digest": "VARCHAR", "prev": "VARCHAR", "hash": "VARCHAR"}'))
FROM (
    SELECT line_no, text,
        CASE
            WHEN text IS NULL THEN 'not valid UTF-8'
            WHEN trim(text, ' ' || chr(9) || chr(13)) = '' THEN 'empty line'
            WHEN NOT json_valid(text) THEN 'not valid JSON'
            WHEN json_type(text::JSON) <> 'OBJECT' THEN 'not a JSON object'
        END AS parse_error
    FROM raw_lines
)

-- name: raw_view_lines
CREATE OR REPLACE VIEW raw AS
SELECT line_no, parse_error, seq, "at", actor, op, memory_id, batch, body, body_digest, prev, hash
FROM raw_parsed

-- name: log_problems
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

-- name: staged
-- Envelope and state of each line, parsed once; state fields that must be judged strictly
-- (numbers, lists, the value) stay JSON until state_problems has looked at them.
CREATE OR REPLACE TABLE staged AS
SELECT line_no, seq::BIGINT AS seq, "at", actor, op, memory_id, batch, body.reason AS reason,
    body.erased AS erased, hash,
    json_transform(body.after,
        '{"id": "VARCHAR", "entity": "VARCHAR", "attribute": "VARCHAR", "value": "JSON",
          "kind": "VARCHAR", "layer": "VARCHAR", "source": "VARCHAR", "authority": "JSON",
          "confidence": "JSON", "observed_at": "VARCHAR", "valid_from": "VARCHAR",
          "valid_to": "VARCHAR", "scope": "VARCHAR", "subject": "VARCHAR", "justification": "JSON",
          "context": "VARCHAR", "status": "VARCHAR", "held_reason": "VARCHAR",
          "retention": "VARCHAR", "expires_at": "VARCHAR", "sensitivity": "VARCHAR",
          "tags": "JSON", "certificate": "VARCHAR", "certificate_digest": "VARCHAR",
          "subject_digest": "VARCHAR", "subject_salt": "VARCHAR"}') AS s
FROM raw

-- name: state_problems
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

-- name: staged_counts
-- Lines just taken, and how many of them carry no chain fields.
SELECT count(*), count(*) FILTER (WHERE hash IS NULL) FROM staged

-- name: versions_insert
-- Staged lines become versions.
INSERT INTO versions
SELECT seq, "at"::TIMESTAMPTZ, actor, op, memory_id, batch, reason,
    erased IS NOT NULL AS redacted,
    coalesce(erased, s.certificate) AS certificate,
    CASE WHEN erased IS NULL THEN s.subject_digest END AS subject_digest,
    CASE WHEN erased IS NULL THEN s.subject_salt END AS subject_salt,
    hash,
    CASE WHEN keyed THEN s.entity END AS entity,
    CASE WHEN keyed THEN s.attribute END AS attribute,
    CASE WHEN keyed THEN s.value END AS value,
    CASE WHEN keyed THEN s.kind END AS kind,
    CASE WHEN keyed THEN coalesce(s.layer, 'semantic') END AS layer,
    CASE WHEN keyed THEN s.source END AS source,
    CASE WHEN keyed THEN split_part(s.source, '/', 1) END AS principal,
    CASE WHEN keyed THEN coalesce(s.authority::BIGINT, 0) END AS authority,
    CASE WHEN keyed THEN s.confidence::DOUBLE END AS confidence,
    CASE WHEN keyed THEN s.observed_at::TIMESTAMPTZ END AS observed_at,
    CASE WHEN keyed THEN s.valid_from::TIMESTAMPTZ END AS valid_from,
    CASE WHEN keyed THEN s.valid_to::TIMESTAMPTZ END AS valid_to,
    CASE WHEN keyed THEN coalesce(s.scope, '') END AS scope,
    CASE WHEN keyed THEN CASE WHEN coalesce(s.scope, '') = '' THEN 0
                              ELSE len(string_split(s.scope, '/')) END END AS depth,
    CASE WHEN keyed THEN s.subject END AS subject,
    CASE WHEN keyed THEN coalesce(s.justification::VARCHAR[], []) END AS justification,
    CASE WHEN keyed THEN s.context END AS context,
    CASE WHEN keyed THEN s.status ELSE 'erased' END AS status,
    CASE WHEN keyed THEN s.held_reason END AS held_reason,
    CASE WHEN keyed THEN s.retention END AS retention,
    CASE WHEN keyed THEN s.expires_at::TIMESTAMPTZ END AS expires_at,
    CASE WHEN keyed THEN s.sensitivity END AS sensitivity,
    CASE WHEN keyed THEN coalesce(s.tags::VARCHAR[], []) END AS tags
FROM (SELECT *, erased IS NULL AND op <> 'erase' AS keyed FROM staged)

-- name: known_ids_insert
INSERT INTO known_ids
SELECT DISTINCT memory_id FROM staged
WHERE memory_id NOT IN (SELECT memory_id FROM known_ids)

-- name: entries_forget
DELETE FROM entries WHERE memory_id IN (SELECT memory_id FROM staged)

-- name: entries_refresh
-- The current state of every entry touched by the staged lines: its last version, with the
-- stored `after` verbatim (unknown fields kept) as `state`.
INSERT INTO entries
SELECT v.*, r.body.after AS state
FROM versions v
JOIN (SELECT memory_id, max(seq) AS seq FROM versions
      WHERE memory_id IN (SELECT memory_id FROM staged) GROUP BY memory_id) last
  ON v.memory_id = last.memory_id AND v.seq = last.seq
JOIN raw r ON r.line_no = v.seq

-- name: edges_forget
DELETE FROM edges WHERE src IN (SELECT memory_id FROM staged)

-- name: edges_refresh
INSERT INTO edges
SELECT memory_id AS src, unnest(justification) AS dst
FROM entries
WHERE memory_id IN (SELECT memory_id FROM staged)

-- name: scope_filter_entries
-- --scope S (DESIGN §8): an entry is loaded only when its current state lies inside S
-- (S itself or a sub-scope); erased entries have no scope and lie inside none.
DELETE FROM entries
WHERE NOT (scope IS NOT NULL AND ($scope = '' OR scope = $scope OR starts_with(scope, $scope || '/')))

-- name: scope_filter_versions
DELETE FROM versions WHERE memory_id NOT IN (SELECT memory_id FROM entries)

-- name: scope_filter_edges
DELETE FROM edges WHERE src NOT IN (SELECT memory_id FROM entries)
