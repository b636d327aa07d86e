-- One current entry: its stored state verbatim, and its key and scope.
SELECT state, entity, attribute, scope, status FROM entries WHERE memory_id = $id
