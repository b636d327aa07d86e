-- The TUI's screens: rows materialized per view and numbered from 0 (vpos), then paged with
-- vpos BETWEEN $first AND $last; plus the header counts and the lineage tree's labels.

-- name: tui_beliefs_all
-- The Beliefs screen's rows for one view, numbered from 0: row_key identifies a row (an
-- entry wins at most one row per context), marks names its markers and where its winner
-- comes from (badges are drawn from present/glyphs), haystack is what the filter searches
-- (lower-cased once here, so a keystroke is one contains() scan).
CREATE OR REPLACE TABLE tui_all AS
SELECT pos - 1 AS vpos,
    memory_id || chr(31) || scope AS row_key,
    list_concat(markers, CASE WHEN len(overridden_in) > 0 THEN ['overridden'] ELSE [] END,
                CASE WHEN belief_scope <> scope THEN ['from_broader'] ELSE [] END) AS marks,
    lower(concat_ws(chr(31), memory_id, entity, attribute, value::VARCHAR, source, scope)) AS haystack,
    *
FROM beliefs

-- name: tui_beliefs_filtered
-- The rows whose key, value, source, id or scope contain the filter text, renumbered from 0.
CREATE OR REPLACE TABLE tui_filtered AS
SELECT row_number() OVER (ORDER BY vpos) - 1 AS vpos, * EXCLUDE (vpos)
FROM tui_all WHERE contains(haystack, $needle)

-- name: tui_beliefs_filtered_view
-- With a filter: the screen pages the filtered rows.
CREATE OR REPLACE VIEW tui_beliefs AS SELECT * FROM tui_filtered

-- name: tui_beliefs_unfiltered
-- No filter: the screen pages tui_all itself (a view, so nothing is copied).
CREATE OR REPLACE VIEW tui_beliefs AS SELECT * FROM tui_all

-- name: tui_beliefs_find
-- Where a belief row lies in the Beliefs screen's rows (to move the cursor to it).
SELECT vpos FROM tui_beliefs WHERE memory_id = $id ORDER BY (scope = $scope) DESC, vpos LIMIT 1

-- name: tui_held_rows
-- The Review screen: the held queue, oldest hold first, numbered from 0.
CREATE OR REPLACE TABLE tui_held AS
SELECT row_number() OVER (ORDER BY seq) - 1 AS vpos, memory_id, held_reason, entity, attribute,
    value, source, scope, observed_at, "at" AS held_at, actor
FROM entries WHERE status = 'held'

-- name: tui_quarantine_rows
-- The Quarantine screen: quarantined entries with the batch, operator, time and reason of the
-- event that quarantined them, newest first.
CREATE OR REPLACE TABLE tui_quarantine AS
SELECT row_number() OVER (ORDER BY seq DESC) - 1 AS vpos, memory_id, entity, attribute, value,
    scope, batch, actor, "at" AS quarantined_at, reason
FROM entries WHERE status = 'quarantined'

-- name: tui_conflict_rows
-- The Conflicts screen: one row per marker of the view's beliefs.
CREATE OR REPLACE TABLE tui_conflicts AS
SELECT row_number() OVER (ORDER BY entity, attribute, scope, marker) - 1 AS vpos,
    memory_id || chr(31) || scope || chr(31) || marker AS row_key, * FROM (
    SELECT scope, entity, attribute, marker, memory_id,
        CASE marker WHEN 'contested' THEN contested_ids WHEN 'claim_disagrees' THEN claim_ids
             WHEN 'inference_disagrees' THEN inference_ids ELSE vetoed_ids END AS causes,
        value
    FROM (SELECT *, unnest(markers) AS marker FROM beliefs)
)

-- name: tui_log_view
-- The Audit screen: the log in seq order (seq 1 is vpos 0), a view over the loaded versions.
CREATE OR REPLACE VIEW tui_log AS
SELECT seq - 1 AS vpos, seq, "at", actor, op, memory_id, batch, reason, status, redacted, hash
FROM versions

-- name: tui_log_rows
-- Under a --scope filter the loaded versions have gaps in seq: number them for paging.
CREATE OR REPLACE TABLE tui_log AS
SELECT row_number() OVER (ORDER BY seq) - 1 AS vpos, seq, "at", actor, op, memory_id, batch,
    reason, status, redacted, hash
FROM versions

-- name: tui_page
-- One page of a screen's rows: every screen table is numbered by vpos from 0.
SELECT * FROM query_table($table) WHERE vpos BETWEEN $first AND $last ORDER BY vpos

-- name: tui_count
SELECT count(*) FROM query_table($table)

-- name: tui_visible
-- Which of $ids a screen's table shows (a plan says how many it does not show).
SELECT DISTINCT memory_id FROM query_table($table)
WHERE memory_id IN (SELECT unnest($ids::VARCHAR[]))

-- name: tui_visible_with_causes
-- The same for a table whose rows also list the entries that cause them (Conflicts).
SELECT DISTINCT id FROM (
    SELECT memory_id AS id FROM query_table($table)
    UNION ALL SELECT unnest(causes) FROM query_table($table)
) WHERE id IN (SELECT unnest($ids::VARCHAR[]))

-- name: tui_counts
-- The header: events and entries (each screen's count is tui_count of its table).
SELECT (SELECT count(*) FROM versions) AS events,
    (SELECT count(*) FROM entries WHERE entity IS NOT NULL) AS entries

-- name: tui_entry_tree
-- Key, value and status of a set of entries (labels of the lineage tree).
SELECT memory_id, entity, attribute, value, kind, status, scope FROM entries
WHERE memory_id = ANY($ids::VARCHAR[])
