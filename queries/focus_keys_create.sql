-- Keys a plan may change; beliefs_in(…, true) looks only at these.
CREATE TABLE IF NOT EXISTS focus_keys (entity VARCHAR, attribute VARCHAR)
