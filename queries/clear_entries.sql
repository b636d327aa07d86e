DELETE FROM entries
