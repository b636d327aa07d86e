-- Entries about data subject $subject in any of their versions (DESIGN §6): its subject, an
-- entity that is it or has it as a segment, a scope with it as a segment, or it as the
-- source principal. Entries already erased have no key and match nothing.
SELECT DISTINCT memory_id FROM versions
WHERE entity IS NOT NULL AND (
    subject = $subject OR entity = $subject OR list_contains(string_split(entity, '/'), $subject)
    OR list_contains(string_split(scope, '/'), $subject) OR principal = $subject)
ORDER BY memory_id
