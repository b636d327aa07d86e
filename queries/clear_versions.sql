DELETE FROM versions
