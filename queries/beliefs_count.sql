SELECT count(*) FROM beliefs
