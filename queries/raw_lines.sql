-- Numbered lines handed over by Python (a tail of the log, or the whole log when the fast
-- path found a problem and exact line numbers are needed). A NULL text was not UTF-8.
CREATE OR REPLACE TABLE raw_lines AS
SELECT unnest($line_nos::BIGINT[]) AS line_no, unnest($texts::VARCHAR[]) AS text
