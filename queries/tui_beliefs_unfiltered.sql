-- No filter: the screen pages tui_all itself (a view, so nothing is copied).
CREATE OR REPLACE VIEW tui_beliefs AS SELECT * FROM tui_all
