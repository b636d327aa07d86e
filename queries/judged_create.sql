-- An empty `judged` table so that macros reading it can be defined before the first view.
CREATE TABLE IF NOT EXISTS judged AS SELECT * FROM judged_at(NULL::TIMESTAMPTZ) WHERE false
