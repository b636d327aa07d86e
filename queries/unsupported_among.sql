-- Which of the given summaries the belief rule would not support as of $tk.
SELECT memory_id FROM support_at($tk)
WHERE NOT supported AND memory_id IN (SELECT unnest($ids::VARCHAR[]))
