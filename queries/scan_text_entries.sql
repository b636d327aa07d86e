-- Entries whose values the text detectors read: every live keyed entry.
SELECT memory_id, status, source, scope, layer, subject, sensitivity, value::VARCHAR AS value
FROM entries WHERE entity IS NOT NULL AND status IN ('active', 'held', 'quarantined', 'rejected', 'retracted', 'expired')
ORDER BY memory_id
