-- summary.unsupported: active summaries the belief rule does not support as of $tk.
SELECT s.memory_id, s.justification
FROM state_at($tk) s JOIN support_at($tk) p ON p.memory_id = s.memory_id
WHERE s.status = 'active' AND NOT p.supported
ORDER BY s.memory_id
