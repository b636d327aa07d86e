-- --scope S (DESIGN §8): an entry is loaded only when its current state lies inside S
-- (S itself or a sub-scope); erased entries have no scope and lie inside none.
DELETE FROM entries
WHERE NOT (scope IS NOT NULL AND ($scope = '' OR scope = $scope OR starts_with(scope, $scope || '/')))
