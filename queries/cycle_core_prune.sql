-- An edge whose source nothing cites, or whose target cites nothing, is on no cycle.
DELETE FROM cycle_core
WHERE src NOT IN (SELECT dst FROM cycle_core) OR dst NOT IN (SELECT src FROM cycle_core)
