-- Events loaded and bodies replaced by erasure.
SELECT count(*) AS events, count(*) FILTER (WHERE redacted) AS redacted FROM versions
