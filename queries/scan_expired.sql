-- validity.expired_active: expires_at has passed and the entry is still active.
SELECT memory_id, expires_at FROM entries
WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= $now
ORDER BY memory_id
