-- Entries a selector matches (DESIGN §5): exact source, source principal, or due to expire;
-- only inside $scope when one is given. Erased entries have no key and match nothing.
SELECT memory_id FROM entries
WHERE entity IS NOT NULL
  AND ($source IS NULL OR source = $source)
  AND ($principal IS NULL OR principal = $principal)
  AND (NOT $due OR (status = 'active' AND expires_at IS NOT NULL AND expires_at <= $now))
  AND ($scope IS NULL OR $scope = '' OR scope = $scope OR starts_with(scope, $scope || '/'))
ORDER BY memory_id
