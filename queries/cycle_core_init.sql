-- The edges that may lie on a justification cycle; cycle_core_prune.sql strips the rest.
CREATE OR REPLACE TEMP TABLE cycle_core AS SELECT DISTINCT src, dst FROM edges
