-- The TUI's screens: rows materialized per view and numbered from 0 (vpos), then paged with
-- vpos BETWEEN $first AND $last; plus the header counts and the lineage tree's labels.

-- name: tui_beliefs_all
-- The Beliefs screen's rows for one view, numbered from 0: row_key identifies a row (an
-- entry wins at most one row per context), marks names its markers and where its winner
-- comes from (badges are drawn from present/glyphs), source_class what the Overview narrows
-- the rows to. What the filter searches is lower-cased when it searches (tui_beliefs_filtered):
-- a lower-cased copy of every value kept here held as much as the values themselves (2.2 GB
-- at 5M events of long values).
-- sensitivity and held_reason come along so that a secret's value is shown masked.
CREATE OR REPLACE TABLE tui_all AS SELECT * FROM tui_all_rows(false)

-- name: tui_beliefs_source
-- What each row of tui_all holds: tui_all_rows(false) every row (tui_beliefs_all),
-- tui_all_rows(true) the focus keys' rows, read by their new positions (patch_new_positions),
-- and only the entries judged for them (a patch).
CREATE OR REPLACE MACRO tui_all_rows(focus) AS TABLE
SELECT b.pos - 1 AS vpos,
    b.memory_id || chr(31) || b.scope AS row_key,
    list_concat(b.markers, CASE WHEN len(b.overridden_in) > 0 THEN ['overridden'] ELSE [] END,
                CASE WHEN b.belief_scope <> b.scope THEN ['from_broader'] ELSE [] END) AS marks,
    split_part(b.source, ':', 1) AS source_class,
    b.*, e.sensitivity, e.held_reason
FROM (SELECT * FROM beliefs WHERE NOT focus OR pos IN (SELECT pos FROM patch_new_positions)) b
LEFT JOIN (SELECT memory_id, sensitivity, held_reason FROM entries
           WHERE NOT focus OR memory_id IN (SELECT memory_id FROM judged)) e
    ON e.memory_id = b.memory_id

-- name: tui_beliefs_patch_forget
-- After a belief patch (beliefs.patch: patch_plan, where each focus key's rows were and now
-- are, and patch_shift, how the rows of other keys move): tui_all brought to what
-- tui_beliefs_all would build, in place. The focus keys' old rows, by position.
DELETE FROM tui_all
WHERE vpos IN (SELECT unnest(range(before_n, before_n + old_n)) FROM patch_plan)

-- name: tui_beliefs_shift_range
-- One range of patch_shift moved (beliefs.shift), its bounds constants.
UPDATE tui_all SET vpos = vpos + $shift, pos = pos + $shift WHERE vpos >= $lo AND vpos < $hi

-- name: tui_beliefs_patch_shift
-- patch_shift's ranges are of 1-based positions (the belief table's pos, copied = vpos + 1);
-- every range in one statement (a range join over the table), for many ranges.
UPDATE tui_all SET vpos = vpos + s.shift, pos = pos + s.shift
FROM patch_shift s
WHERE s.shift <> 0 AND tui_all.vpos >= s.lo AND tui_all.vpos < s.hi

-- name: tui_beliefs_patch_take
INSERT INTO tui_all
SELECT * FROM tui_all_rows(true)

-- name: tui_beliefs_filtered
-- The rows whose key, value, source, id, context or winning entry's scope contain the filter
-- text, renumbered from 0:
-- their row keys alone (a copy of the rows a wide filter keeps held every value again).
CREATE OR REPLACE TABLE tui_filtered AS
SELECT row_number() OVER (ORDER BY vpos) - 1 AS vpos, row_key
FROM tui_all
WHERE contains(lower(concat_ws(chr(31), memory_id, entity, attribute, value::VARCHAR, source,
                               scope, belief_scope)), $needle)

-- name: tui_beliefs_filtered_view
-- With a filter: the screen pages the filtered rows, read from tui_all by row key (which a
-- live patch does not change, as it does positions).
CREATE OR REPLACE VIEW tui_beliefs AS
SELECT f.vpos, t.* EXCLUDE (vpos) FROM tui_filtered f JOIN tui_all t ON t.row_key = f.row_key

-- name: tui_beliefs_unfiltered
-- No filter: the screen pages tui_all itself (a view, so nothing is copied).
CREATE OR REPLACE VIEW tui_beliefs AS SELECT * FROM tui_all

-- name: tui_beliefs_find
-- Where a belief row lies in the Beliefs screen's rows (to move the cursor to it).
SELECT vpos FROM tui_beliefs WHERE memory_id = $id ORDER BY (scope = $scope) DESC, vpos LIMIT 1

-- name: tui_beliefs_find_ordered
-- The same when the operator sorted or narrowed the rows (positions are tui_order's).
SELECT o.vpos FROM tui_order o JOIN tui_beliefs r ON r.vpos = o.src
WHERE o.screen = 'beliefs' AND r.memory_id = $id ORDER BY (r.scope = $scope) DESC, o.vpos LIMIT 1

-- name: tui_changed_ids
-- The entries the events taken since the last build changed (their status may have changed:
-- the Review and Quarantine rows are patched from these).
CREATE OR REPLACE TABLE tui_changed AS SELECT unnest($ids::VARCHAR[]) AS memory_id

-- name: tui_held_source
-- The Review screen's rows (the held queue; hold_reason is the reason the hold event gives,
-- importers write one; a revert that put the entry back in the queue gives the operator's
-- reason for the revert, not why it is held): of every entry, or (changed) only of those in
-- tui_changed.
CREATE OR REPLACE MACRO tui_held_of(changed) AS TABLE
SELECT seq, memory_id, held_reason, entity, attribute, value, source, scope, observed_at,
    "at" AS held_at, actor, sensitivity, layer,
    CASE WHEN op <> 'revert' THEN reason END AS hold_reason
FROM entries
WHERE status = 'held' AND (NOT changed OR memory_id IN (SELECT memory_id FROM tui_changed))

-- name: tui_quarantine_source
-- The Quarantine screen's rows (with the batch, operator, time and reason of the event that
-- quarantined them, and the source, which the Overview narrows to), as tui_held_source. The
-- event that quarantined an entry is its last `quarantine` event, not its last event: an
-- update written after (by ingest) was shown as the quarantine, by importer:ingest with no
-- reason (helper-79). An entry written quarantined has none: its last event stands.
CREATE OR REPLACE MACRO tui_quarantine_of(changed) AS TABLE
WITH shown AS (
    SELECT * FROM entries
    WHERE status = 'quarantined'
      AND (NOT changed OR memory_id IN (SELECT memory_id FROM tui_changed))
), by_whom AS (
    SELECT memory_id, arg_max(batch, seq) AS batch, arg_max(actor, seq) AS actor,
        arg_max("at", seq) AS "at", arg_max(reason, seq) AS reason
    FROM versions
    WHERE op = 'quarantine' AND memory_id IN (SELECT memory_id FROM shown)
    GROUP BY memory_id
)
SELECT e.seq, e.memory_id, e.entity, e.attribute, e.value, e.scope,
    CASE WHEN q.memory_id IS NULL THEN e.batch ELSE q.batch END AS batch,
    CASE WHEN q.memory_id IS NULL THEN e.actor ELSE q.actor END AS actor,
    CASE WHEN q.memory_id IS NULL THEN e."at" ELSE q."at" END AS quarantined_at,
    CASE WHEN q.memory_id IS NULL THEN e.reason ELSE q.reason END AS reason,
    e.sensitivity, e.held_reason, e.source
FROM shown e LEFT JOIN by_whom q ON q.memory_id = e.memory_id

-- name: tui_held_rows
-- The Review screen: the held queue, oldest hold first, numbered from 0.
CREATE OR REPLACE TABLE tui_held AS
SELECT row_number() OVER (ORDER BY seq) - 1 AS vpos, * FROM tui_held_of(false)

-- name: tui_held_patch_gone
-- After events: where the rows of the changed entries stood (the rows after them move up by
-- one each). Their events are newer than every other entry's, so their rows go last (the
-- queue is oldest first) and the others only close the gaps.
CREATE OR REPLACE TABLE tui_held_gone AS
SELECT vpos FROM tui_held WHERE memory_id IN (SELECT memory_id FROM tui_changed)

-- name: tui_held_patch_forget
DELETE FROM tui_held WHERE memory_id IN (SELECT memory_id FROM tui_changed)

-- name: tui_held_patch_shift
UPDATE tui_held SET vpos = tui_held.vpos - g.before
FROM (SELECT h.vpos, count(*) AS before FROM tui_held h JOIN tui_held_gone g ON g.vpos < h.vpos
      GROUP BY h.vpos) g
WHERE tui_held.vpos = g.vpos

-- name: tui_held_patch_take
INSERT INTO tui_held
SELECT (SELECT count(*) FROM tui_held) + row_number() OVER (ORDER BY seq) - 1 AS vpos, *
FROM tui_held_of(true)

-- name: tui_quarantine_rows
-- The Quarantine screen: quarantined entries, newest first, numbered from 0.
CREATE OR REPLACE TABLE tui_quarantine AS
SELECT row_number() OVER (ORDER BY seq DESC) - 1 AS vpos, * FROM tui_quarantine_of(false)

-- name: tui_quarantine_patch_gone
-- After events: where the rows of the changed entries stood; the changed entries that are
-- quarantined now are newer than every other, so they go first (newest first): the others
-- close the gaps, then move down by as many.
CREATE OR REPLACE TABLE tui_quarantine_gone AS
SELECT vpos FROM tui_quarantine WHERE memory_id IN (SELECT memory_id FROM tui_changed)

-- name: tui_quarantine_patch_new
CREATE OR REPLACE TABLE tui_quarantine_new AS
SELECT row_number() OVER (ORDER BY seq DESC) - 1 AS vpos, * FROM tui_quarantine_of(true)

-- name: tui_quarantine_patch_forget
DELETE FROM tui_quarantine WHERE memory_id IN (SELECT memory_id FROM tui_changed)

-- name: tui_quarantine_patch_close
UPDATE tui_quarantine SET vpos = tui_quarantine.vpos - g.before
FROM (SELECT q.vpos, count(*) AS before FROM tui_quarantine q
          JOIN tui_quarantine_gone g ON g.vpos < q.vpos GROUP BY q.vpos) g
WHERE tui_quarantine.vpos = g.vpos

-- name: tui_quarantine_patch_shift
UPDATE tui_quarantine SET vpos = vpos + (SELECT count(*) FROM tui_quarantine_new)
WHERE (SELECT count(*) FROM tui_quarantine_new) > 0

-- name: tui_quarantine_patch_take
INSERT INTO tui_quarantine SELECT * FROM tui_quarantine_new

-- name: tui_conflict_source
-- The Conflicts screen: one row per marker of the view's beliefs (unnumbered);
-- tui_conflict_rows_of(true): the focus keys' rows only, read by their new positions, and
-- only the entries judged for them (a patch, which at 5M events took 0.1-0.3 s more
-- unnesting every marker and joining every entry).
CREATE OR REPLACE MACRO tui_conflict_rows_of(focus) AS TABLE
SELECT m.memory_id || chr(31) || m.scope || chr(31) || m.marker AS row_key,
    m.scope, m.entity, m.attribute, m.marker, m.memory_id,
    CASE m.marker WHEN 'contested' THEN m.contested_ids WHEN 'claim_disagrees' THEN m.claim_ids
         WHEN 'inference_disagrees' THEN m.inference_ids ELSE m.vetoed_ids END AS causes,
    m.value, e.sensitivity, e.held_reason
FROM (SELECT *, unnest(markers) AS marker FROM beliefs
      WHERE len(markers) > 0 AND (NOT focus OR pos IN (SELECT pos FROM patch_new_positions))) m
LEFT JOIN (SELECT memory_id, sensitivity, held_reason FROM entries
           WHERE NOT focus OR memory_id IN (SELECT memory_id FROM judged)) e
    ON e.memory_id = m.memory_id

-- name: tui_conflict_rows
-- The Conflicts screen's rows, numbered from 0 in key, scope and marker order: numbered on the
-- keys alone, then joined to the rows (a sort of whole rows held every value twice at once:
-- 780 MB more at 1M events of long values).
CREATE OR REPLACE TABLE tui_conflicts AS
SELECT o.vpos, c.*
FROM (SELECT row_key, row_number() OVER (ORDER BY entity, attribute, scope, marker) - 1 AS vpos
      FROM (SELECT memory_id || chr(31) || scope || chr(31) || unnest(markers) AS row_key,
                entity, attribute, scope, unnest(markers) AS marker FROM beliefs)) o
JOIN tui_conflict_rows_of(false) c ON c.row_key = o.row_key

-- name: tui_conflict_places_view
-- tui_conflicts as key_places reads a table: its vpos (from 0) named pos.
CREATE OR REPLACE VIEW tui_conflict_places AS
SELECT vpos AS pos, entity, attribute FROM tui_conflicts

-- name: tui_conflict_patch_rows
-- After a belief patch, before tui_conflicts changes: the focus keys' rows as they now are.
CREATE OR REPLACE TABLE conflict_patch_rows AS SELECT * FROM tui_conflict_rows_of(true)

-- name: tui_conflict_patch_plan
-- Where each focus key's rows were and how many it gains (plan_of; vpos from 0).
CREATE OR REPLACE TABLE conflict_plan AS
SELECT * FROM plan_of('tui_conflict_places', 0, 'conflict_patch_rows')

-- name: tui_conflict_patch_forget
DELETE FROM tui_conflicts
WHERE vpos IN (SELECT unnest(range(before_n, before_n + old_n)) FROM conflict_plan)

-- name: tui_conflict_shift_ranges
-- Its moves: a row at vpos v moves when lo <= v < hi.
CREATE OR REPLACE TABLE conflict_shift AS SELECT * FROM shift_ranges_of('conflict_plan')

-- name: tui_conflict_moves
-- The ranges that move, in position order (beliefs.shift), none empty.
SELECT lo, hi, shift FROM conflict_shift WHERE shift <> 0 AND hi > lo ORDER BY lo

-- name: tui_conflict_shift_range
UPDATE tui_conflicts SET vpos = vpos + $shift WHERE vpos >= $lo AND vpos < $hi

-- name: tui_conflict_patch_shift
-- Every range moved in one statement (a range join over the table), for many ranges.
UPDATE tui_conflicts SET vpos = vpos + s.shift
FROM conflict_shift s
WHERE s.shift <> 0 AND tui_conflicts.vpos >= s.lo AND tui_conflicts.vpos < s.hi

-- name: tui_conflict_patch_take
INSERT INTO tui_conflicts
SELECT p.new_first + row_number() OVER (PARTITION BY c.entity, c.attribute
                                        ORDER BY c.scope, c.marker) - 1 AS vpos, c.*
FROM conflict_patch_rows c JOIN conflict_plan p ON p.entity = c.entity AND p.attribute = c.attribute

-- name: tui_conflict_patch_done
-- Taken: the rows (values included) are not kept in scratch (as patch_rows_empty).
DELETE FROM conflict_patch_rows

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

-- name: tui_visible_narrowed
-- Which of $ids the rows of $table whose column $field reads $value hold (a table narrowed to
-- one value: a marked row the narrowing hides is not shown, and the plan says so).
SELECT DISTINCT struct_extract(r, 'memory_id') FROM query_table($table) r
WHERE struct_extract(r, 'memory_id') IN (SELECT unnest($ids::VARCHAR[]))
  AND struct_extract(r, $field)::VARCHAR IS NOT DISTINCT FROM $value

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
-- Key, value and status of a set of entries (labels of the lineage tree, rivals, plans), with
-- what tells whether the value is shown masked.
SELECT memory_id, entity, attribute, value, kind, status, scope, sensitivity, held_reason
FROM entries WHERE memory_id = ANY($ids::VARCHAR[])

-- name: tui_order_create
-- A table's rows in the order the operator asked for (a sort, or one value of a column):
-- per screen, position vpos in that order -> position src in the screen's table.
CREATE TABLE IF NOT EXISTS tui_order (screen VARCHAR, vpos BIGINT, src BIGINT)

-- name: tui_order_clear
DELETE FROM tui_order WHERE screen = $screen

-- name: tui_order_fill
-- Sort by column $sort ($descending), keeping only rows whose column $field reads $value when
-- $narrowed; ties keep the table's own order. Columns are named through struct_extract,
-- so the statement takes them as parameters.
INSERT INTO tui_order
SELECT $screen, row_number() OVER (ORDER BY
        CASE WHEN $descending THEN NULL ELSE k END ASC NULLS LAST,
        CASE WHEN $descending THEN k END DESC NULLS LAST, vpos) - 1, vpos
FROM (SELECT vpos, struct_extract(r, $sort) AS k, struct_extract(r, $field)::VARCHAR AS v
      FROM query_table($table) r)
WHERE NOT $narrowed OR v IS NOT DISTINCT FROM $value

-- name: tui_order_count
SELECT count(*) FROM tui_order WHERE screen = $screen

-- name: tui_order_page
-- One page of a screen's rows in the order asked for, numbered by that order.
SELECT o.vpos, r.* EXCLUDE (vpos)
FROM tui_order o JOIN query_table($table) r ON r.vpos = o.src
WHERE o.screen = $screen AND o.vpos BETWEEN $first AND $last ORDER BY o.vpos

-- name: tui_widest
-- The widest value of a column (an id column is as wide as this: never cut), in characters,
-- among the values drawn as written, one cell a character: printable ASCII, no backslash, no
-- space at either end. The others (escapes, wide characters) are measured as drawn, in Python
-- (tui_widest_drawn): `M9` + a zero-width space is 2 characters and 8 cells (`M9\u200b`).
SELECT max(length(v)) FROM (SELECT struct_extract(r, $field)::VARCHAR AS v FROM query_table($table) r)
WHERE regexp_full_match(v, '([!-\[\]-~]([ -\[\]-~]*[!-\[\]-~])?)')

-- name: tui_widest_drawn
-- The longest distinct values of a column that are not drawn as written (tui_widest), to be
-- measured as drawn; $n of them at most.
SELECT v FROM (
    SELECT DISTINCT struct_extract(r, $field)::VARCHAR AS v FROM query_table($table) r
)
WHERE v IS NOT NULL AND NOT regexp_full_match(v, '([!-\[\]-~]([ -\[\]-~]*[!-\[\]-~])?)')
ORDER BY length(v) DESC, v
LIMIT $n

-- name: tui_time_span
-- What the rows of a time column differ in: how many years (and the first), any seconds.
SELECT count(DISTINCT year(t)), min(year(t)), coalesce(bool_or(second(t) <> 0), false)
FROM (SELECT struct_extract(r, $field) AS t FROM query_table($table) r)

-- name: tui_present
-- The rows of $keys (values of column $field) a table still holds: marks of rows that left go,
-- and so do those of rows another process changed since they were marked.
SELECT * FROM query_table($table) r
WHERE struct_extract(r, $field)::VARCHAR IN (SELECT unnest($keys::VARCHAR[]))

-- name: tui_frequencies
-- A column's values with how many rows hold each (visidata's Shift+F), most frequent first;
-- `value` is the text the narrowing compares (::VARCHAR), `raw` the value itself, for showing
-- it as the table does (a time in the column's format).
SELECT struct_extract(r, $field)::VARCHAR AS value, count(*) AS n,
    any_value(struct_extract(r, $field)) AS raw
FROM query_table($table) r
GROUP BY 1 ORDER BY n DESC, value NULLS LAST LIMIT 500

-- name: tui_frequencies_flagged
-- The same for the value column, with whether an entry holding the value is marked secret
-- (its sensitivity read by its ASCII letters in any case, as model.sensitivity_of reads it).
SELECT struct_extract(r, $field)::VARCHAR AS value, count(*) AS n,
    bool_or(coalesce(lower(regexp_replace(r.sensitivity, '[^A-Za-z]', '', 'g')) = 'secret'
                     OR r.held_reason = 'secret', false)) AS secret
FROM query_table($table) r
GROUP BY 1 ORDER BY n DESC, value NULLS LAST LIMIT 500

-- name: tui_statuses
-- The current status of some entries (Findings drops those no longer active or held).
SELECT memory_id, status FROM entries WHERE memory_id IN (SELECT unnest($ids::VARCHAR[]))

-- name: tui_hold_reasons
-- The reason each of some held entries' hold event gives (as tui_held_source: a revert's is the
-- operator's, not why the entry is held), for the approve dialog.
SELECT memory_id, CASE WHEN op <> 'revert' THEN reason END FROM entries
WHERE status = 'held' AND memory_id IN (SELECT unnest($ids::VARCHAR[]))

-- name: tui_erase_preview
-- The erasure preview: each entry considered, with its key and value (shown masked if secret).
SELECT memory_id, status, kind, entity, attribute, value, sensitivity, held_reason FROM entries
WHERE memory_id IN (SELECT unnest($ids::VARCHAR[]))

-- name: tui_subjects
-- Data subjects the store knows, with how many entries name each: declared subjects, and
-- user:/customer: entities and source principals (what erasure by subject matches).
SELECT name, count(DISTINCT memory_id) AS entries FROM (
    SELECT subject AS name, memory_id FROM entries WHERE subject IS NOT NULL
    UNION ALL SELECT entity, memory_id FROM entries
        WHERE entity LIKE 'user:%' OR entity LIKE 'customer:%'
    UNION ALL SELECT split_part(source, '/', 1), memory_id FROM entries
        WHERE source LIKE 'user:%' OR source LIKE 'customer:%'
) WHERE name IS NOT NULL AND name <> '' AND memory_id IN (
    SELECT memory_id FROM entries WHERE status <> 'erased')
GROUP BY name ORDER BY entries DESC, name

-- name: tui_event_pair
-- The Audit screen's Enter: an event's state, and the state before it (the same entry's
-- previous event), newest first.
SELECT * FROM versions
WHERE memory_id = (SELECT memory_id FROM versions WHERE seq = $seq) AND seq <= $seq
ORDER BY seq DESC LIMIT 2

-- name: tui_hash_at
-- The hash of the loaded event at a seq (the header compares it with the log on disk).
SELECT hash FROM versions WHERE seq = $seq

-- name: tui_events_since
-- Events after $seq of the entries loaded (in a --scope session, those inside its scope).
SELECT count(*) FROM versions WHERE seq > $seq

-- name: ids_since_seq
-- The entries events after $seq changed (what the live view judges again).
SELECT DISTINCT memory_id FROM versions WHERE seq > $seq

-- name: tui_overview_span
-- The Overview: the first and last event's time, in epoch seconds (what the buckets span).
SELECT epoch_ms(min("at")) // 1000, epoch_ms(max("at")) // 1000 FROM versions

-- name: tui_overview_events
-- The Overview: events after seq $after per time bucket of $step seconds (aligned on the
-- epoch), op and source class. The class is grouped by the source's first letter (the seven
-- classes differ in it; see tui/overview.py): far cheaper than cutting 5M sources at ':'.
SELECT epoch_ms("at") // ($step * 1000) AS bucket, op, source[1] AS letter, count(*) AS n
FROM versions WHERE seq > $after
GROUP BY ALL

-- name: tui_overview_held
-- The Overview: the held queue's size, and its oldest hold (time and entry).
SELECT count(*), min("at"), arg_min(memory_id, "at") FROM entries WHERE status = 'held'

-- name: tui_overview_quarantined
-- The Overview: quarantined entries by source, most first.
SELECT source, count(*) AS n FROM entries WHERE status = 'quarantined'
GROUP BY source ORDER BY n DESC, source NULLS LAST

-- name: ids_since_seq_left_scope
-- Whether an entry that events after $seq changed is not in a scoped store's tables (its
-- current state left the scope): no patch can see it to take its rows away.
SELECT count(*) > 0 FROM all_versions
WHERE seq > $seq AND memory_id NOT IN (SELECT memory_id FROM versions)
