-- scope.leak: an entry citing an entry whose scope is not visible from its own scope.
SELECT e.src AS memory_id, list(e.dst ORDER BY e.dst) AS cited, any_value(s.scope) AS scope
FROM edges e
JOIN entries s ON s.memory_id = e.src AND s.entity IS NOT NULL
JOIN entries t ON t.memory_id = e.dst AND t.entity IS NOT NULL
WHERE NOT visible(t.scope, s.scope)
GROUP BY e.src
ORDER BY e.src
