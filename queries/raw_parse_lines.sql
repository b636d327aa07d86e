-- The same shape as raw_file, parsed from numbered lines, with the reason a line is not JSON.
CREATE OR REPLACE TABLE raw_parsed AS
SELECT line_no, parse_error, unnest(json_transform(CASE WHEN parse_error IS NULL THEN text END,
    '{"seq": "JSON", "at": "VARCHAR", "actor": "VARCHAR", "op": "VARCHAR", "memory_id": "VARCHAR",
      "batch": "VARCHAR", "body": {"after": "JSON", "reason": "VARCHAR", "erased": "VARCHAR"},
      "body_digest": "VARCHAR", "prev": "VARCHAR", "hash": "VARCHAR"}'))
FROM (
    SELECT line_no, text,
        CASE
            WHEN text IS NULL THEN 'not valid UTF-8'
            WHEN trim(text, ' ' || chr(9) || chr(13)) = '' THEN 'empty line'
            WHEN NOT json_valid(text) THEN 'not valid JSON'
            WHEN json_type(text::JSON) <> 'OBJECT' THEN 'not a JSON object'
        END AS parse_error
    FROM raw_lines
)
