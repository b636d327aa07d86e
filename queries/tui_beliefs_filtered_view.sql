-- With a filter: the screen pages the filtered rows.
CREATE OR REPLACE VIEW tui_beliefs AS SELECT * FROM tui_filtered
