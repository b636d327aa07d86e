-- Lines just taken, and how many of them carry no chain fields.
SELECT count(*), count(*) FILTER (WHERE hash IS NULL) FROM staged
