-- Rows of raw_file are in file order, so rowid + 1 is the line number.
CREATE OR REPLACE VIEW raw AS
SELECT rowid + 1 AS line_no, NULL::VARCHAR AS parse_error, *
FROM raw_file
