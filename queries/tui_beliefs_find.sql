-- Where a belief row lies in the Beliefs screen's rows (to move the cursor to it).
SELECT vpos FROM tui_beliefs WHERE memory_id = $id ORDER BY (scope = $scope) DESC, vpos LIMIT 1
