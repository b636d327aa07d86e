-- Which of $ids the operator sees in a screen's table (a plan says how many it does not show).
SELECT DISTINCT memory_id FROM (
    SELECT memory_id, 'beliefs' AS screen FROM tui_beliefs
    UNION ALL SELECT memory_id, 'review' FROM tui_held
    UNION ALL SELECT memory_id, 'quarantine' FROM tui_quarantine
    UNION ALL SELECT memory_id, 'conflicts' FROM tui_conflicts
    UNION ALL SELECT unnest(causes), 'conflicts' FROM tui_conflicts
) WHERE screen = $screen AND memory_id IN (SELECT unnest($ids::VARCHAR[]))
