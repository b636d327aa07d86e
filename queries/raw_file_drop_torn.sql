-- A torn last line read by the fast path: not an event.
DELETE FROM raw_file WHERE rowid >= $n
