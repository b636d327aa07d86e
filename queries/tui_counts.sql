-- The header and the mode bar: events, entries, held, quarantined.
SELECT (SELECT count(*) FROM versions) AS events,
    (SELECT count(*) FROM entries WHERE entity IS NOT NULL) AS entries,
    (SELECT count(*) FROM entries WHERE status = 'held') AS held,
    (SELECT count(*) FROM entries WHERE status = 'quarantined') AS quarantined
