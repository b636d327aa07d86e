-- The tables the store is loaded into, their indexes, and the session settings.
-- Tables are created once per connection (IF NOT EXISTS); clear_* empties them for a reload,
-- drop_* removes the scratch tables of one load step.

-- name: set_utc
-- Times come back in UTC, whatever the machine's zone.
SET GLOBAL TimeZone = 'UTC'

-- name: no_progress_bar
-- DuckDB draws a progress bar on stdout for long queries: never into our output.
-- (A session setting: every cursor of the store sets it too, see Store.cursor.)
SET enable_progress_bar = false

-- name: versions_create
-- One row per event: its envelope and the entry state it leaves (the `after`), typed.
-- A body replaced by erasure, and an erase event, leave status 'erased' and no key.
CREATE TABLE IF NOT EXISTS versions (
    seq BIGINT, "at" TIMESTAMPTZ, actor VARCHAR, op VARCHAR, memory_id VARCHAR, batch VARCHAR,
    reason VARCHAR, redacted BOOLEAN, certificate VARCHAR, subject_digest VARCHAR, subject_salt VARCHAR, hash VARCHAR,
    entity VARCHAR, attribute VARCHAR, value JSON, kind VARCHAR, layer VARCHAR, source VARCHAR,
    principal VARCHAR, authority BIGINT, confidence DOUBLE, observed_at TIMESTAMPTZ,
    valid_from TIMESTAMPTZ, valid_to TIMESTAMPTZ, scope VARCHAR, depth INTEGER, subject VARCHAR,
    justification VARCHAR[], context VARCHAR, status VARCHAR, held_reason VARCHAR,
    retention VARCHAR, expires_at TIMESTAMPTZ, sensitivity VARCHAR, tags VARCHAR[],
    malformed VARCHAR    -- why the state breaks the entry contract (never a belief), or NULL
)

-- name: entries_create
CREATE TABLE IF NOT EXISTS entries AS SELECT *, NULL::JSON AS state FROM versions WHERE false

-- name: edges_create
-- Justification edges of the current entries: src rests on dst.
CREATE TABLE IF NOT EXISTS edges (src VARCHAR, dst VARCHAR)

-- name: known_ids_create
-- Every id the log names, inside a --scope filter or not: ids are envelope data, and knowing
-- them tells a citation of a hidden entry from a dangling one.
CREATE TABLE IF NOT EXISTS known_ids (memory_id VARCHAR)

-- name: focus_keys_create
-- Keys a plan may change; beliefs_in(…, true) looks only at these.
CREATE TABLE IF NOT EXISTS focus_keys (entity VARCHAR, attribute VARCHAR)

-- name: judged_create
-- An empty `judged` table so that macros reading it can be defined before the first view.
CREATE TABLE IF NOT EXISTS judged AS SELECT * FROM judged_at(NULL::TIMESTAMPTZ) WHERE false

-- name: index_entries_id
-- A point-lookup index for the TUI's per-keystroke queries (detail pane, lineage).
CREATE INDEX IF NOT EXISTS idx_entries_id ON entries(memory_id)

-- name: index_versions_id
-- A point-lookup index for the TUI's per-keystroke queries (detail pane, lineage).
CREATE INDEX IF NOT EXISTS idx_versions_id ON versions(memory_id)

-- name: index_edges_src
-- A point-lookup index for the TUI's per-keystroke queries (detail pane, lineage).
CREATE INDEX IF NOT EXISTS idx_edges_src ON edges(src)

-- name: index_edges_dst
-- A point-lookup index for the TUI's per-keystroke queries (detail pane, lineage).
CREATE INDEX IF NOT EXISTS idx_edges_dst ON edges(dst)

-- name: index_known_ids_id
-- A point-lookup index for the TUI's per-keystroke queries (detail pane, lineage).
CREATE INDEX IF NOT EXISTS idx_known_ids_id ON known_ids(memory_id)

-- name: clear_versions
DELETE FROM versions

-- name: clear_entries
DELETE FROM entries

-- name: clear_edges
DELETE FROM edges

-- name: clear_known_ids
DELETE FROM known_ids

-- name: drop_raw
DROP VIEW IF EXISTS raw

-- name: drop_staged
DROP TABLE IF EXISTS staged

-- name: drop_raw_file
DROP TABLE IF EXISTS raw_file

-- name: drop_raw_parsed
DROP TABLE IF EXISTS raw_parsed

-- name: drop_raw_lines
DROP TABLE IF EXISTS raw_lines
