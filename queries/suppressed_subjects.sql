-- The suppression list (DESIGN §6): salted digests of erased subjects, from erase events.
SELECT DISTINCT subject_salt, subject_digest FROM versions
WHERE op = 'erase' AND subject_digest IS NOT NULL AND subject_salt IS NOT NULL
