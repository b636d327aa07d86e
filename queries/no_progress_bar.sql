-- DuckDB draws a progress bar on stdout for long queries: never into our output.
-- (A session setting: every cursor of the store sets it too, see Store.cursor.)
SET enable_progress_bar = false
