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
        'memory_id': 'VARCHAR', 'batch': 'VARCHAR', 'batch_size': 'JSON',
        'body': 'STRUCT(after JSON, reason VARCHAR, erased VARCHAR)',
        'body_digest': 'VARCHAR', 'prev': 'VARCHAR', 'hash': 'VARCHAR'
    })

-- name: raw_file_count
SELECT count(*) FROM raw_file

-- name: raw_file_drop_torn
-- A torn last line read by the fast path: not an event.
DELETE FROM raw_file WHERE rowid >= $n

-- name: memory_in_use
-- Bytes DuckDB holds for the tables loaded so far (and everything else it keeps).
SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory()

-- name: memory_not_cached
-- Bytes DuckDB holds other than its cache of database files' blocks (lean.let_go).
SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() WHERE tag <> 'BASE_TABLE'

-- name: compact_memory
-- An in-memory database's checkpoint compresses its tables (and drops deleted rows): a cold
-- load in ranges runs it when what it has loaded grows large, the TUI after building its
-- tables (Store._compact_over).
CHECKPOINT

-- name: raw_first_line
-- The line number of raw_file's first row (a cold load reads the log a range at a time).
SET VARIABLE raw_first_line = $first_line::BIGINT

-- name: raw_view_file
-- Rows of raw_file are in file order, so rowid + raw_first_line is the line number. The fast
-- read knows no mistyped field: the strict scan beside it sends a range holding one to the
-- exact read (strictscan.refused).
CREATE OR REPLACE VIEW raw AS
SELECT rowid + getvariable('raw_first_line') AS line_no, NULL::VARCHAR AS parse_error,
    NULL::VARCHAR[] AS mistyped, *
FROM raw_file

-- name: raw_lines
-- Numbered lines handed over by Python (a tail of the log, or the whole log when the fast
-- path found a problem and exact line numbers are needed). A NULL text was not UTF-8.
-- mistyped: the envelope fields of a JSON type the VARCHAR columns below would hide
-- (envelope.mistyped: "batch": 5 reads as '5').
CREATE OR REPLACE TABLE raw_lines AS
SELECT unnest($line_nos::BIGINT[]) AS line_no, unnest($texts::VARCHAR[]) AS text,
    unnest($errors::VARCHAR[]) AS strict_error, unnest($mistyped::VARCHAR[][]) AS mistyped

-- name: raw_parse_lines
-- The same shape as raw_file, parsed from numbered lines, with the reason a line is not JSON.
CREATE OR REPLACE TABLE raw_parsed AS
SELECT line_no, parse_error, mistyped, unnest(json_transform(CASE WHEN parse_error IS NULL THEN text END,
    '{"seq": "JSON", "at": "VARCHAR", "actor": "VARCHAR", "op": "VARCHAR", "memory_id": "VARCHAR",
      "batch": "VARCHAR", "batch_size": "JSON",
      "body": {"after": "JSON", "reason": "VARCHAR", "erased": "VARCHAR"},
      "body_digest": "VARCHAR", "prev": "VARCHAR", "hash": "VARCHAR"}'))
FROM (
    SELECT line_no, text, mistyped,
        CASE
            WHEN text IS NULL THEN 'not valid UTF-8'
            WHEN trim(text, ' ' || chr(9) || chr(13)) = '' THEN 'empty line'
            WHEN strict_error IS NOT NULL THEN 'not valid JSON (' || strict_error || ')'
            WHEN NOT json_valid(text) THEN 'not valid JSON'
            WHEN json_type(text::JSON) <> 'OBJECT' THEN 'not a JSON object'
        END AS parse_error
    FROM raw_lines
)

-- name: raw_view_lines
CREATE OR REPLACE VIEW raw AS
SELECT line_no, parse_error, mistyped, seq, "at", actor, op, memory_id, batch, batch_size, body,
    body_digest,
    prev, hash
FROM raw_parsed

-- name: log_problems
-- Envelope problems of the lines in `raw` (DESIGN §2.1, §7): the first reason per line.
-- Structure only: whether digests match is audit's. envelope.line_problem is these rules and
-- state_problems' in the same order and words, for audit --verify: change both together.
-- $first_line is the line number of the first line in raw, $prev_seq the seq before it,
-- $chained_before whether a chained line came before it.
WITH first_chained AS (
    SELECT min(line_no) AS line_no FROM raw WHERE prev IS NOT NULL
), judged AS (
    SELECT r.line_no, r.parse_error, coalesce(r.mistyped, []) AS mistyped, r."at", r.actor, r.op,
        r.memory_id, r.body, r.body_digest, r.prev, r.hash,
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
            WHEN "at" IS NULL OR NOT real_time("at")
                THEN 'field "at" is missing or not an RFC 3339 time'
            WHEN actor IS NULL OR NOT regexp_full_match(actor, '[a-z][a-z0-9_-]*:\S+')
                THEN 'field "actor" is missing or not of the form class:id'
            WHEN op IS NULL OR NOT list_contains($ops, op) THEN 'field "op" is missing or unknown'
            WHEN memory_id IS NULL OR memory_id = '' THEN 'field "memory_id" is missing or empty'
            WHEN list_contains(mistyped, 'memory_id') THEN 'field "memory_id" must be a string'
            WHEN list_contains(mistyped, 'batch') THEN 'field "batch" must be a string or null'
            WHEN list_contains(mistyped, 'batch_size') THEN 'field "batch_size" must be a positive integer'
            WHEN body IS NULL OR list_contains(mistyped, 'body') THEN 'field "body" is missing or not an object'
            WHEN body_digest IS NULL OR NOT regexp_full_match(body_digest, '[0-9a-f]{64}')
                 OR list_contains(mistyped, 'body_digest')
                THEN 'field "body_digest" is missing or not a SHA-256 (64 lower-case hex digits)'
            WHEN (prev IS NULL) <> (hash IS NULL) THEN 'fields "prev" and "hash" must come together'
            WHEN (prev IS NOT NULL AND NOT (regexp_full_match(prev, '[0-9a-f]{64}')
                                            AND regexp_full_match(hash, '[0-9a-f]{64}')))
                 OR list_contains(mistyped, 'prev') OR list_contains(mistyped, 'hash')
                THEN 'fields "prev" and "hash" must be SHA-256 digests (64 lower-case hex digits)'
            WHEN prev IS NULL AND after_chained THEN 'unchained line after a chained one'
            WHEN list_contains(mistyped, 'body.erased')
                THEN 'a redacted body is {"erased": "<certificate-id>"} alone'
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
SELECT line_no, seq::BIGINT AS seq, "at", actor, op, memory_id, batch,
    -- A number past BIGINT is an integer too large for any batch (a fraction, a string or
    -- null is refused: envelope.mistyped, which sends such a line to the exact read).
    CASE json_type(batch_size)
        WHEN 'BIGINT' THEN batch_size::BIGINT
        WHEN 'UBIGINT' THEN least(batch_size::UBIGINT, 4611686018427387904)::BIGINT
        WHEN 'DOUBLE' THEN 4611686018427387904
    END AS batch_size,
    body.reason AS reason,
    body.erased AS erased, hash, body.after AS after,
    json_transform(body.after,
        '{"id": "VARCHAR", "entity": "VARCHAR", "attribute": "VARCHAR", "value": "JSON",
          "kind": "VARCHAR", "layer": "VARCHAR", "source": "VARCHAR", "authority": "JSON",
          "confidence": "JSON", "observed_at": "VARCHAR", "valid_from": "VARCHAR",
          "valid_to": "VARCHAR", "scope": "VARCHAR", "subject": "VARCHAR", "justification": "JSON",
          "context": "VARCHAR", "status": "VARCHAR", "held_reason": "VARCHAR",
          "retention": "VARCHAR", "expires_at": "VARCHAR", "sensitivity": "VARCHAR",
          "tags": "JSON", "certificate": "VARCHAR", "certificate_digest": "VARCHAR",
          "subject_digest": "VARCHAR", "subject_salt": "VARCHAR"}') AS s,
    -- The first field, in contract.entry_problem's order, that holds something else than text
    -- (json_transform would cast it), and the first required field that is absent (null is
    -- present: it is judged as a value). types[]: 1 entity, 2 attribute, 3 kind, 4 source,
    -- 5 layer, 6 scope, 7 observed_at, 8 valid_from, 9 valid_to, 10 expires_at, 11 subject,
    -- 12 context, 13 retention, 14 sensitivity, 15 held_reason, 16 value, 17 id.
    ['entity', 'attribute', 'kind', 'source', 'layer', 'scope', 'observed_at', 'valid_from',
     'valid_to', 'expires_at', 'subject', 'context', 'retention', 'sensitivity', 'held_reason'][
        list_position(list_transform(types[1:15], lambda t: t IS NULL OR t IN ('VARCHAR', 'NULL')),
                      false)] AS not_text,
    ['entity', 'attribute', 'value', 'kind', 'source', 'observed_at'][list_position(
        [types[1], types[2], types[16], types[3], types[4], types[7]], NULL)] AS missing,
    NULL::VARCHAR AS malformed,
    coalesce(types[17] = 'VARCHAR', false) AS id_is_text
FROM (
    SELECT *, json_type(body.after,
        ['$.entity', '$.attribute', '$.kind', '$.source', '$.layer', '$.scope', '$.observed_at',
         '$.valid_from', '$.valid_to', '$.expires_at', '$.subject', '$.context', '$.retention',
         '$.sensitivity', '$.held_reason', '$.value', '$.id']) AS types
    FROM raw
)

-- name: state_problems
-- Lines whose state cannot be an entry at all (an erase event's shape, an id that is not the
-- event's): these stop the load like a bad line. Everything else an entry may get wrong
-- makes it malformed (staged_malformed), not unloadable.
SELECT line_no, seq, problem FROM (
    SELECT line_no, seq,
        CASE
            WHEN erased IS NOT NULL THEN NULL
            -- an id that is no string ("id": 5) is not memory_id "5", though s.id reads '5'
            WHEN s.id IS DISTINCT FROM memory_id OR NOT id_is_text
                THEN 'body.after.id does not match memory_id'
            WHEN op = 'erase' AND (s.status IS DISTINCT FROM 'erased' OR s.certificate IS NULL)
                THEN 'an erase event needs body.after.status "erased" and a certificate'
            WHEN op <> 'erase' AND s.status = 'erased'
                THEN 'status "erased" is only written by an erase event'
        END AS problem
    FROM staged
)
WHERE problem IS NOT NULL
ORDER BY line_no

-- name: staged_malformed
-- The entry contract (the same rules as inspector/store/contract.py, which a test checks):
-- the first field an entry state gets wrong, with the reason. Times must be real calendar
-- times whose offset lies within ±23:59 and whose UTC year lies in 1..9999; integers within
-- ±2^31. Value-level checks (depth, non-finite numbers) are finished in Python for the few
-- lines that could fail them (staged_value_suspects).
UPDATE staged SET malformed = CASE
    -- contract.entry_problem's order: required fields present, then _strings, _enums,
    -- _numbers, _lists, _times, _optional (_whole: the extras, then staged_value_suspects).
    -- not_text is the first mistyped field in that order, so a check on it never jumps ahead.
    WHEN missing IS NOT NULL THEN 'field "' || missing || '" is missing'
    WHEN not_text = 'entity' OR coalesce(s.entity, '') = '' THEN 'field "entity" must be a non-empty string'
    WHEN not_text = 'attribute' OR coalesce(s.attribute, '') = '' THEN 'field "attribute" must be a non-empty string'
    WHEN not_text = 'kind' OR coalesce(s.kind, '') = '' THEN 'field "kind" must be a non-empty string'
    WHEN not_text = 'source' OR coalesce(s.source, '') = '' THEN 'field "source" must be a non-empty string'
    WHEN not_text = 'layer' OR s.layer = '' THEN 'field "layer" must be a non-empty string'
    WHEN not_text = 'scope' THEN 'field "scope" must be a string'
    WHEN length(s.scope) - length(replace(s.scope, '/', '')) >= $max_segments
        THEN 'field "scope" must have at most ' || $max_segments || ' segments'
    WHEN s.scope <> '' AND (starts_with(s.scope, '/') OR ends_with(s.scope, '/')
                            OR contains(s.scope, '//'))
        THEN 'field "scope" must not have an empty segment ("a//b", "/a", "a/")'
    WHEN NOT list_contains($kinds, s.kind)
        THEN 'field "kind" must be observation, claim, inference or summary'
    WHEN s.layer IS NOT NULL AND NOT list_contains($layers, s.layer)
        THEN 'field "layer" must be episodic, semantic or procedural'
    WHEN s.status IS NULL OR NOT list_contains($statuses, s.status)
        THEN 'field "status" must be one of ' || array_to_string($statuses, ', ')
    WHEN NOT regexp_full_match(s.source, $source_re, 's')
        THEN 'field "source" must be class:id[/detail] with class user, operator, system, agent, tool, document or web'
    WHEN s.authority IS NOT NULL AND json_type(s.authority) <> 'NULL' AND NOT (json_type(s.authority) IN ('UBIGINT', 'BIGINT')
         OR (json_type(s.authority) = 'DOUBLE' AND regexp_full_match(s.authority::VARCHAR, '-?\d+')))
        THEN 'field "authority" must be an integer'
    WHEN json_type(s.authority) IN ('UBIGINT', 'BIGINT', 'DOUBLE')
         AND NOT coalesce(try_cast(s.authority::VARCHAR AS HUGEINT) BETWEEN -2147483648 AND 2147483647, false)
        THEN 'field "authority" must lie within ±2^31'
    WHEN s.confidence IS NOT NULL AND (json_type(s.confidence) NOT IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'NULL')
         OR NOT coalesce(try_cast(s.confidence::VARCHAR AS DOUBLE) BETWEEN 0 AND 1, true))
        THEN 'field "confidence" must be a number from 0 to 1 or null'
    WHEN s.justification IS NOT NULL AND json_type(s.justification) <> 'NULL' AND NOT id_list(s.justification)
        THEN 'field "justification" must be a list of ids'
    WHEN s.tags IS NOT NULL AND json_type(s.tags) <> 'NULL' AND NOT id_list(s.tags) THEN 'field "tags" must be a list of strings'
    WHEN not_text = 'observed_at' OR NOT real_time(s.observed_at) THEN 'field "observed_at" must be an RFC 3339 time: a real calendar date, an offset within ±23:59, in the years 1 to 9999 once in UTC (e.g. 2025-03-01T04:06:55Z)'
    WHEN not_text = 'valid_from' OR (s.valid_from IS NOT NULL AND NOT real_time(s.valid_from))
        THEN 'field "valid_from" must be an RFC 3339 time: a real calendar date, an offset within ±23:59, in the years 1 to 9999 once in UTC (e.g. 2025-03-01T04:06:55Z)'
    WHEN not_text = 'valid_to' OR (s.valid_to IS NOT NULL AND NOT real_time(s.valid_to))
        THEN 'field "valid_to" must be an RFC 3339 time: a real calendar date, an offset within ±23:59, in the years 1 to 9999 once in UTC (e.g. 2025-03-01T04:06:55Z)'
    WHEN not_text = 'expires_at' OR (s.expires_at IS NOT NULL AND NOT real_time(s.expires_at))
        THEN 'field "expires_at" must be an RFC 3339 time: a real calendar date, an offset within ±23:59, in the years 1 to 9999 once in UTC (e.g. 2025-03-01T04:06:55Z)'
    WHEN not_text = 'subject' THEN 'field "subject" must be a string or null'
    WHEN not_text = 'context' THEN 'field "context" must be a string or null'
    WHEN not_text = 'retention' THEN 'field "retention" must be a string or null'
    WHEN not_text = 'sensitivity' THEN 'field "sensitivity" must be a string or null'
    WHEN not_text = 'held_reason' THEN 'field "held_reason" must be a string or null'
END
WHERE erased IS NULL AND op <> 'erase'

-- name: staged_value_suspects
-- Values that might be nested deeper than 64 levels, or hold a non-finite number or one too
-- large for 64 bits (NaN, Infinity, 1e999, nineteen digits or more: DuckDB keeps such a
-- number's text as written): Python decides (contract.value_problem) without the stack. A
-- string is neither (a lone surrogate escape stops the line before: strictscan, judge_line):
-- prose holds "inf" and "nan" in its words, and 5,000 values of 100 KB each were all read
-- again in Python (2.8 s of a 49 s cold load).
SELECT line_no, s.value::VARCHAR FROM staged
WHERE erased IS NULL AND op <> 'erase' AND malformed IS NULL AND s.value IS NOT NULL
  AND json_type(s.value) <> 'VARCHAR'
  AND (length(s.value::VARCHAR) - length(replace(replace(s.value::VARCHAR, '[', ''), '{', '')) > 64
       OR regexp_matches(s.value::VARCHAR, '(?i)inf|nan|\d{19}|\d[e]\+?\d{3}'))

-- name: staged_mark_malformed
-- The first problem found stays: the SQL's rules, then unknown extras' (contract.extras_problem),
-- then the value's.
UPDATE staged SET malformed = $problem WHERE line_no = $line_no AND malformed IS NULL

-- name: macro_load_checks
-- Helpers of staged_malformed.
-- real_time is never NULL: a time DuckDB cannot cast (a 60th second) is not real, as for
-- contract.is_real_time; hours stop at 23 (DuckDB reads 24:00 as the next day, Python refuses it).
CREATE OR REPLACE MACRO real_time(t) AS
    t IS NOT NULL
    AND regexp_full_match(t, '\d{4}-\d\d-\d\d[Tt]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)')
    AND left(t, 4) <> '0000'
    AND try_cast(left(t, 10) AS DATE) IS NOT NULL
    AND coalesce(year(try_cast(upper(t) AS TIMESTAMPTZ) AT TIME ZONE 'UTC') BETWEEN 1 AND 9999,
                 false);
CREATE OR REPLACE MACRO id_list(j) AS
    json_type(j) = 'ARRAY'
    AND coalesce(list_bool_and(list_transform(json_extract(j, '$[*]'),
            lambda x: json_type(x) = 'VARCHAR' AND json_extract_string(x, '$') <> '')), true)

-- name: staged_batch_runs
-- All or nothing (DESIGN §5): the runs of consecutive staged lines of one batch of two or more
-- (batch_size, from the run's first line, as audit counts them), in the log's order, that are
-- shorter than their batch or touch either end of the staged lines (a run may go on in the
-- lines before or after them: Store.take_staged joins it).
WITH ends AS (SELECT min(line_no) AS lo, max(line_no) AS hi FROM staged)
SELECT min(line_no) AS first_line, max(line_no) AS last_line, arg_min(seq, line_no) AS first_seq,
    batch, arg_min(batch_size, line_no) AS size, count(*) AS n, any_value(lo), any_value(hi)
FROM (
    SELECT line_no, seq, batch, batch_size,
        line_no - row_number() OVER (PARTITION BY batch ORDER BY line_no) AS run
    FROM staged
    WHERE batch IS NOT NULL AND batch_size >= 2
), ends
GROUP BY batch, run
HAVING count(*) < arg_min(batch_size, line_no) OR min(line_no) = any_value(lo)
    OR max(line_no) = any_value(hi)
ORDER BY first_line

-- name: staged_counts
-- Lines just taken, and how many of them carry no chain fields.
SELECT count(*), count(*) FILTER (WHERE hash IS NULL) FROM staged

-- name: staged_versions
-- Staged lines as versions, each with the stored `after` verbatim (unknown fields kept) as
-- `state`. A malformed entry keeps only the times that are real (a time outside years 1..9999
-- in UTC would reach Python as text): the others are NULL here; its stored state keeps them
-- verbatim.
CREATE OR REPLACE TEMP VIEW staged_versions AS
SELECT seq, upper("at")::TIMESTAMPTZ, actor, op, memory_id, batch, reason,
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
    CASE WHEN keyed THEN CASE WHEN malformed IS NULL THEN coalesce(s.authority::BIGINT, 0)
                              ELSE try_cast(s.authority::VARCHAR AS BIGINT) END END AS authority,
    CASE WHEN keyed THEN try_cast(s.confidence::VARCHAR AS DOUBLE) END AS confidence,
    CASE WHEN keyed THEN CASE WHEN malformed IS NULL THEN upper(s.observed_at)::TIMESTAMPTZ
                              WHEN real_time(s.observed_at) THEN upper(s.observed_at)::TIMESTAMPTZ END END AS observed_at,
    CASE WHEN keyed THEN CASE WHEN malformed IS NULL THEN upper(s.valid_from)::TIMESTAMPTZ
                              WHEN real_time(s.valid_from) THEN upper(s.valid_from)::TIMESTAMPTZ END END AS valid_from,
    CASE WHEN keyed THEN CASE WHEN malformed IS NULL THEN upper(s.valid_to)::TIMESTAMPTZ
                              WHEN real_time(s.valid_to) THEN upper(s.valid_to)::TIMESTAMPTZ END END AS valid_to,
    CASE WHEN keyed THEN coalesce(s.scope, '') END AS scope,
    CASE WHEN keyed THEN CASE WHEN coalesce(s.scope, '') = '' THEN 0
                              ELSE len(string_split(s.scope, '/')) END END AS depth,
    CASE WHEN keyed THEN s.subject END AS subject,
    CASE WHEN keyed THEN coalesce(try_cast(s.justification AS VARCHAR[]), []) END AS justification,
    CASE WHEN keyed THEN s.context END AS context,
    CASE WHEN keyed THEN s.status ELSE 'erased' END AS status,
    CASE WHEN keyed THEN s.held_reason END AS held_reason,
    CASE WHEN keyed THEN s.retention END AS retention,
    CASE WHEN keyed THEN CASE WHEN malformed IS NULL THEN upper(s.expires_at)::TIMESTAMPTZ
                              WHEN real_time(s.expires_at) THEN upper(s.expires_at)::TIMESTAMPTZ END END AS expires_at,
    CASE WHEN keyed THEN s.sensitivity END AS sensitivity,
    CASE WHEN keyed THEN coalesce(try_cast(s.tags AS VARCHAR[]), []) END AS tags,
    CASE WHEN keyed THEN malformed END AS malformed,
    after AS state
FROM (SELECT *, erased IS NULL AND op <> 'erase' AS keyed FROM staged)

-- name: versions_insert
-- Staged lines become versions.
INSERT INTO versions_new
SELECT * EXCLUDE (state) FROM staged_versions

-- name: version_keys_insert
-- The staged versions' keys (version_keys_create), one row per entry and key a chunk holds.
INSERT INTO version_keys_new
SELECT DISTINCT hash(entity, attribute), memory_id, entity, attribute FROM staged_versions

-- name: known_ids_insert
-- The staged ids not known before. The known ids are probed against the few staged ones (a
-- NOT IN built a hash table of every known id: 68 ms of each append's 0.17 s at 1M events).
INSERT INTO known_new
SELECT DISTINCT memory_id FROM staged
EXCEPT
SELECT memory_id FROM known_ids WHERE memory_id IN (SELECT memory_id FROM staged)

-- name: entries_touch
-- The entries the staged lines touch: their rows in `base` are out of date.
INSERT INTO touched
SELECT DISTINCT memory_id FROM staged
WHERE memory_id NOT IN (SELECT memory_id FROM touched)

-- name: entries_forget
DELETE FROM entries_new WHERE memory_id IN (SELECT memory_id FROM staged)

-- name: entries_refresh
-- The current state of every entry touched by the staged lines: its last version, which is
-- the last staged line of its id (staged lines are the newest), with `state`. Taken from the
-- staged lines as they stream, never by a join with the versions or the raw lines: at a million
-- long-valued entries such a join held 2.4 GB of states at once.
INSERT INTO entries_new
SELECT * FROM staged_versions
WHERE seq IN (SELECT max(seq) FROM staged GROUP BY memory_id)

-- name: edges_forget
DELETE FROM edges_new WHERE src IN (SELECT memory_id FROM staged)

-- name: edges_refresh
INSERT INTO edges_new
SELECT memory_id AS src, unnest(justification) AS dst
FROM entries_new
WHERE memory_id IN (SELECT memory_id FROM staged)
