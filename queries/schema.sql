-- The tables the store is loaded into, their indexes, and the session settings.
-- Tables are created once per connection (IF NOT EXISTS); clear_* empties them for a reload,
-- drop_* removes the scratch tables of one load step.

-- name: set_utc
-- Times come back in UTC, whatever the machine's zone.
SET GLOBAL TimeZone = 'UTC'

-- name: no_zstd
-- Long strings (a value or a state of kilobytes) are kept uncompressed in the view, never zstd:
-- a zstd segment is one stream, so reading one row's value decompressed every value before it
-- in its row group (`show` of the last of 2,000 entries of 100 KB: 1.0-2.0 s a read, against
-- 2 ms). The view of such a store is then about the size of its texts (2.8x here); short
-- strings are compressed as before (DuckDB chooses zstd only for long ones). A setting of the
-- database instance (checkpoints compress with it), given in the connection's config it is
-- ignored.
SET GLOBAL disabled_compression_methods = 'zstd'

-- name: no_progress_bar
-- DuckDB draws a progress bar on stdout for long queries: never into our output.
-- (A session setting: every cursor of the store sets it too, see Store.cursor.)
SET enable_progress_bar = false

-- name: versions_create
-- One row per event: its envelope and the entry state it leaves (the `after`), typed.
-- A body replaced by erasure, and an erase event, leave status 'erased' and no key.
-- The tables a store answers from are overlays (view.py): the persistent view's rows (schema
-- `base`, attached read-only; an empty in-memory one when there is no view) and the rows of
-- the lines read since (the *_new tables here).
CREATE TABLE IF NOT EXISTS versions_new (
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
-- The current state of each entry a line read since the view touched.
CREATE TABLE IF NOT EXISTS entries_new AS SELECT *, NULL::JSON AS state FROM versions_new WHERE false

-- name: edges_create
-- Justification edges of the entries in entries_new: src rests on dst.
CREATE TABLE IF NOT EXISTS edges_new (src VARCHAR, dst VARCHAR)

-- name: known_ids_create
-- Every id the log names, inside a --scope filter or not: ids are envelope data, and knowing
-- them tells a citation of a hidden entry from a dangling one.
CREATE TABLE IF NOT EXISTS known_new (memory_id VARCHAR)

-- name: version_keys_create
-- The key of each version, by a hash a judgement of a few keys finds by index (its entries:
-- focus_key_entries); a scan of every version's entity and attribute took 0.04-0.2 s of each
-- catch-up of the TUI at 5M events. Kept with the key itself: a hash that collides is never
-- taken for the key.
CREATE TABLE IF NOT EXISTS version_keys_new (kh UBIGINT, memory_id VARCHAR, entity VARCHAR,
                                             attribute VARCHAR)

-- name: touched_create
-- Entries whose current state in `base` is out of date: a line read since touched them.
CREATE TABLE IF NOT EXISTS touched (memory_id VARCHAR)

-- name: scope_create
-- The --scope filter of the overlays (one row, or none).
CREATE TABLE IF NOT EXISTS view_scope (scope VARCHAR)

-- name: base_attach_empty
-- No persistent view: an empty in-memory `base` of the same shape.
ATTACH ':memory:' AS base

-- name: base_versions_empty
CREATE TABLE base.versions AS SELECT * FROM versions_new WHERE false

-- name: base_entries_empty
CREATE TABLE base.entries AS SELECT * FROM entries_new WHERE false

-- name: base_edges_empty
CREATE TABLE base.edges AS SELECT * FROM edges_new WHERE false

-- name: base_known_ids_empty
CREATE TABLE base.known_ids AS SELECT * FROM known_new WHERE false

-- name: base_version_keys_empty
CREATE TABLE base.version_keys AS SELECT * FROM version_keys_new WHERE false

-- name: base_detach
DETACH DATABASE IF EXISTS base

-- name: overlay_versions
-- The whole store, whatever the scope: what the view is written from and what a refresh
-- reads the last version of an entry from.
CREATE OR REPLACE VIEW all_versions AS
SELECT * FROM base.versions UNION ALL SELECT * FROM versions_new

-- name: overlay_entries
CREATE OR REPLACE VIEW all_entries AS
SELECT * FROM base.entries WHERE memory_id NOT IN (SELECT memory_id FROM touched)
UNION ALL SELECT * FROM entries_new

-- name: overlay_edges
CREATE OR REPLACE VIEW all_edges AS
SELECT * FROM base.edges WHERE src NOT IN (SELECT memory_id FROM touched)
UNION ALL SELECT * FROM edges_new

-- name: overlay_known_ids
CREATE OR REPLACE VIEW known_ids AS
SELECT * FROM base.known_ids UNION ALL SELECT * FROM known_new

-- name: overlay_version_keys
CREATE OR REPLACE VIEW all_version_keys AS
SELECT * FROM base.version_keys UNION ALL SELECT * FROM version_keys_new

-- name: whole_versions
CREATE OR REPLACE VIEW versions AS SELECT * FROM all_versions

-- name: whole_entries
CREATE OR REPLACE VIEW entries AS SELECT * FROM all_entries

-- name: whole_edges
CREATE OR REPLACE VIEW edges AS SELECT * FROM all_edges

-- name: whole_version_keys
CREATE OR REPLACE VIEW version_keys AS SELECT * FROM all_version_keys

-- name: scoped_entries
-- --scope S (DESIGN §8): an entry is seen only when its current state lies inside S
-- (S itself or a sub-scope); erased entries have no scope and lie inside none.
CREATE OR REPLACE VIEW entries AS
SELECT e.* FROM all_entries e, view_scope f
WHERE e.scope IS NOT NULL AND (f.scope = '' OR e.scope = f.scope OR starts_with(e.scope, f.scope || '/'))

-- name: scoped_versions
CREATE OR REPLACE VIEW versions AS
SELECT * FROM all_versions WHERE memory_id IN (SELECT memory_id FROM entries)

-- name: scoped_edges
CREATE OR REPLACE VIEW edges AS
SELECT * FROM all_edges WHERE src IN (SELECT memory_id FROM entries)

-- name: scoped_version_keys
CREATE OR REPLACE VIEW version_keys AS
SELECT * FROM all_version_keys WHERE memory_id IN (SELECT memory_id FROM entries)

-- name: scope_set
INSERT INTO view_scope VALUES ($scope)

-- name: focus_keys_create
-- Keys a plan may change; beliefs_in(…, true) looks only at these.
CREATE TABLE IF NOT EXISTS focus_keys (entity VARCHAR, attribute VARCHAR)

-- name: cites_create
-- Every citation of every loaded version (src cites dst), brought up to the loaded versions
-- before a belief patch walks it (cites_update): the walk then reads this small table, not
-- every version's justification again.
CREATE TABLE IF NOT EXISTS version_cites (src VARCHAR, dst VARCHAR)

-- name: cites_seq_create
-- The last seq whose version's citations are in version_cites.
CREATE TABLE IF NOT EXISTS version_cites_seq AS SELECT 0::BIGINT AS seq

-- name: focus_ids_create
-- The entries judging the focus keys needs (focus_ids_fill).
CREATE TABLE IF NOT EXISTS focus_ids (memory_id VARCHAR)

-- name: focus_key_entries_create
-- Every entry that ever held a focus key, where focus_ids_fill and focus_ids_fill_cited start:
-- the versions' keys (version_keys) probed against the few focus keys; a NULL member matches a
-- NULL member, as the tuple IN it replaced did.
CREATE OR REPLACE VIEW focus_key_entries AS
WITH hashed AS MATERIALIZED (
    -- the join on the hash alone, materialized: only so does DuckDB read version_keys by its
    -- index (3 keys at 5M events: 13 ms, against 0.15 s for a scan of the versions' keys)
    SELECT c.* FROM version_keys c SEMI JOIN focus_keys k ON c.kh = hash(k.entity, k.attribute)
)
SELECT DISTINCT c.memory_id FROM hashed c
SEMI JOIN focus_keys k
    ON c.entity IS NOT DISTINCT FROM k.entity AND c.attribute IS NOT DISTINCT FROM k.attribute

-- name: versions_judged_create
-- The columns of a version that judging it reads (the *_focus macros, by focus_versions).
-- A judgement of a few keys reads their versions by index, a row's columns each from its own
-- blocks: 18 columns of 36 took a fifth to a half of the time on a first read (the versions
-- of 383 entries at 5M events: 0.37-0.39 s against 0.90-2.09 s; warm, 0.08 s against 0.09 s).
CREATE OR REPLACE VIEW versions_judged AS
SELECT seq, "at", memory_id, entity, attribute, value, kind, source, principal, authority,
       observed_at, valid_from, valid_to, scope, depth, justification, status, malformed
FROM versions

-- name: focus_version_rows_create
-- The versions of the focus ids, read once per judgement (focus_version_rows_fill): the
-- *_focus macros read them four times or more, and a view filtering `versions` scanned every
-- version each time (judging 1-100 keys after an append took 0.08 s at 1M events, 0.1-1 s at 5M).
CREATE TABLE IF NOT EXISTS focus_version_rows AS SELECT * FROM versions_judged LIMIT 0

-- name: focus_versions_create
-- What the *_focus belief macros read instead of `versions` (see store/macros.py, MACROS_DERIVED).
CREATE OR REPLACE VIEW focus_versions AS SELECT * FROM focus_version_rows

-- name: judged_create
-- An empty `judged` table so that macros reading it can be defined before the first view:
-- judged_at's columns, written out (planning judged_at to learn them took 8 ms of every
-- command); tests/unit/test_schema_judged.py checks they are judged_at's.
CREATE TABLE IF NOT EXISTS judged (
    memory_id VARCHAR, entity VARCHAR, attribute VARCHAR, scope VARCHAR, depth INTEGER,
    value JSON, kind VARCHAR, source VARCHAR, principal VARCHAR, authority BIGINT,
    status VARCHAR, observed_at TIMESTAMPTZ, valid_from TIMESTAMPTZ, valid_to TIMESTAMPTZ,
    supported BOOLEAN, eff_authority BIGINT)

-- name: support_create
-- An empty `support` table (stepwise.materialize fills it) so that judged_in_range can be defined.
CREATE TABLE IF NOT EXISTS support (memory_id VARCHAR, supported BOOLEAN, eff_authority BIGINT)

-- name: index_entries_id
-- Point-lookup indexes for the TUI's per-keystroke queries (detail pane, lineage), on the
-- rows read since the view (the view file has its own).
CREATE INDEX IF NOT EXISTS idx_entries_id ON entries_new(memory_id)

-- name: index_versions_id
CREATE INDEX IF NOT EXISTS idx_versions_id ON versions_new(memory_id)

-- name: index_edges_src
CREATE INDEX IF NOT EXISTS idx_edges_src ON edges_new(src)

-- name: index_edges_dst
CREATE INDEX IF NOT EXISTS idx_edges_dst ON edges_new(dst)

-- name: index_known_ids_id
CREATE INDEX IF NOT EXISTS idx_known_ids_id ON known_new(memory_id)

-- name: index_version_keys
CREATE INDEX IF NOT EXISTS idx_version_keys ON version_keys_new(kh)

-- name: versions_new_any
-- Whether any version was read since the view (a publish that released them empties it).
SELECT EXISTS (SELECT 1 FROM versions_new)

-- name: clear_versions
DELETE FROM versions_new

-- name: clear_entries
DELETE FROM entries_new

-- name: clear_edges
DELETE FROM edges_new

-- name: clear_known_ids
DELETE FROM known_new

-- name: clear_version_keys
DELETE FROM version_keys_new

-- name: clear_touched
DELETE FROM touched

-- name: clear_cites
DELETE FROM version_cites

-- name: clear_cites_seq
UPDATE version_cites_seq SET seq = 0

-- name: view_meta_read
-- The persistent view's record of the log it read (view.py).
SELECT format, code, dev, ino, "offset", seq, hash, chained, unchained, line FROM base.view_meta

-- name: view_meta_create
CREATE TABLE target.view_meta (format INTEGER, code VARCHAR, dev UBIGINT, ino UBIGINT,
    "offset" BIGINT, seq BIGINT, hash VARCHAR, chained BOOLEAN, unchained BIGINT, line VARCHAR)

-- name: view_meta_write
INSERT INTO target.view_meta VALUES ($format, $code, $dev, $ino, $offset, $seq, $hash,
    $chained, $unchained, $line)

-- name: view_write_versions
CREATE TABLE target.versions AS SELECT * FROM all_versions

-- name: view_write_entries
CREATE TABLE target.entries AS SELECT * FROM all_entries

-- name: view_write_edges
CREATE TABLE target.edges AS SELECT * FROM all_edges

-- name: view_write_known_ids
CREATE TABLE target.known_ids AS SELECT * FROM known_ids

-- name: view_write_version_keys
CREATE TABLE target.version_keys AS SELECT * FROM all_version_keys

-- name: view_index_entries
CREATE INDEX view_entries_id ON target.entries(memory_id)

-- name: view_index_versions
CREATE INDEX view_versions_id ON target.versions(memory_id)

-- name: view_index_edges_src
CREATE INDEX view_edges_src ON target.edges(src)

-- name: view_index_edges_dst
CREATE INDEX view_edges_dst ON target.edges(dst)

-- name: view_index_version_keys
CREATE INDEX view_version_keys ON target.version_keys(kh)

-- name: drop_raw
DROP VIEW IF EXISTS raw

-- name: drop_staged_versions
DROP VIEW IF EXISTS staged_versions

-- name: drop_staged
DROP TABLE IF EXISTS staged

-- name: drop_raw_file
DROP TABLE IF EXISTS raw_file

-- name: drop_raw_parsed
DROP TABLE IF EXISTS raw_parsed

-- name: drop_raw_lines
DROP TABLE IF EXISTS raw_lines

-- name: build_versions
-- A cold load that writes its view file as it reads (viewbuild.py) moves the rows read since
-- the last move into the file attached as `base`: versions and known ids are appended, the
-- entries and edges of the ids read again replace the file's.
INSERT INTO base.versions SELECT * FROM versions_new

-- name: build_entries_forget
DELETE FROM base.entries WHERE memory_id IN (SELECT memory_id FROM touched)

-- name: build_entries
INSERT INTO base.entries SELECT * FROM entries_new

-- name: build_edges_forget
DELETE FROM base.edges WHERE src IN (SELECT memory_id FROM touched)

-- name: build_edges
INSERT INTO base.edges SELECT * FROM edges_new

-- name: build_known_ids
INSERT INTO base.known_ids SELECT * FROM known_new

-- name: build_version_keys
INSERT INTO base.version_keys SELECT * FROM version_keys_new

-- name: drop_versions_new
-- Tables made again empty (the *_create statements): their memory is freed at once.
DROP TABLE versions_new

-- name: drop_entries_new
DROP TABLE entries_new

-- name: drop_edges_new
DROP TABLE edges_new

-- name: drop_known_new
DROP TABLE known_new

-- name: drop_version_keys_new
DROP TABLE version_keys_new
