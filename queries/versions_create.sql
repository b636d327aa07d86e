-- One row per event: its envelope and the entry state it leaves (the `after`), typed.
-- A body replaced by erasure, and an erase event, leave status 'erased' and no key.
CREATE TABLE IF NOT EXISTS versions (
    seq BIGINT, "at" TIMESTAMPTZ, actor VARCHAR, op VARCHAR, memory_id VARCHAR, batch VARCHAR,
    reason VARCHAR, redacted BOOLEAN, certificate VARCHAR, subject_digest VARCHAR, subject_salt VARCHAR, hash VARCHAR,
    entity VARCHAR, attribute VARCHAR, value JSON, kind VARCHAR, layer VARCHAR, source VARCHAR,
    principal VARCHAR, authority BIGINT, confidence DOUBLE, observed_at TIMESTAMPTZ,
    valid_from TIMESTAMPTZ, valid_to TIMESTAMPTZ, scope VARCHAR, depth INTEGER, subject VARCHAR,
    justification VARCHAR[], context VARCHAR, status VARCHAR, held_reason VARCHAR,
    retention VARCHAR, expires_at TIMESTAMPTZ, sensitivity VARCHAR, tags VARCHAR[]
)
