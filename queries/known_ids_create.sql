-- Every id the log names, inside a --scope filter or not: ids are envelope data, and knowing
-- them tells a citation of a hidden entry from a dangling one.
CREATE TABLE IF NOT EXISTS known_ids (memory_id VARCHAR)
