DELETE FROM known_ids
