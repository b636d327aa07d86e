SELECT count(*) FROM raw_file
