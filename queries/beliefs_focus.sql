-- The store-wide beliefs of the focus keys, from the judged entries (for a plan's belief diff).
SELECT scope, entity, attribute, memory_id, value FROM beliefs_in($tk, $tk, NULL, true)
