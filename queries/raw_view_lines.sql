CREATE OR REPLACE VIEW raw AS
SELECT line_no, parse_error, seq, "at", actor, op, memory_id, batch, body, body_digest, prev, hash
FROM raw_parsed
