-- Envelope and state of each line, parsed once; state fields that must be judged strictly
-- (numbers, lists, the value) stay JSON until state_problems.sql has looked at them.
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
