SELECT count(*) FROM versions
