-- The fast path: the whole log in one parallel read, envelope fields typed loosely so that
-- log_problems.sql can judge them; bad lines become NULL rows (ignore_errors), never skipped rows.
CREATE OR REPLACE TABLE raw_file AS
SELECT *
FROM read_json($path,
    format = 'newline_delimited',
    ignore_errors = true,
    maximum_object_size = 268435456,
    columns = {
        'seq': 'JSON', 'at': 'VARCHAR', 'actor': 'VARCHAR', 'op': 'VARCHAR',
        'memory_id': 'VARCHAR', 'batch': 'VARCHAR',
        'body': 'STRUCT(after JSON, reason VARCHAR, erased VARCHAR)',
        'body_digest': 'VARCHAR', 'prev': 'VARCHAR', 'hash': 'VARCHAR'
    })
