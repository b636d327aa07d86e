-- Erasure (DESIGN §6): what a subject matches, what derives from it, the events to
-- rewrite, and the suppression list that keeps erased subjects out.

-- name: erase_match
-- Entries about data subject $subject in any of their versions (DESIGN §6): its subject, an
-- entity that is it or has it as a segment, a scope with it as a segment, or it as the
-- source principal. Entries already erased have none of these fields and match nothing; a
-- malformed entry (another writer's, with no entity) matches by those it has (helper-68: one
-- with the subject's `subject` and scope was left whole by the erasure).
SELECT DISTINCT memory_id FROM versions
WHERE subject = $subject OR entity = $subject
    OR list_contains(string_split(coalesce(entity, ''), '/'), $subject)
    OR list_contains(string_split(coalesce(scope, ''), '/'), $subject) OR principal = $subject
ORDER BY memory_id

-- name: erase_spellings
-- The names erase_match compares with $subject that may be it spelled otherwise (case,
-- surrounding spaces, a Unicode form, width, invisible characters: erasure.other_spellings
-- decides): those equal to it but for ASCII case and spaces, and every name with a character
-- outside ASCII.
WITH names AS (
    SELECT memory_id, unnest([subject, entity, principal]
                             || string_split(coalesce(entity, ''), '/')
                             || string_split(coalesce(scope, ''), '/')) AS name
    FROM versions
)
SELECT DISTINCT name, memory_id FROM names
WHERE name IS NOT NULL AND name <> $subject
  AND (lower(trim(name)) = lower(trim($subject)) OR NOT regexp_matches(name, '^[\x00-\x7f]*$'))
ORDER BY memory_id

-- name: erase_id_spellings
-- The ids of live entries that may be one of $ids spelled otherwise (actions.other_ids decides):
-- those equal to one of them but for ASCII case and spaces, and those with a character outside
-- ASCII (cheap: strlen <> length) whose ASCII letters and digits, lower-cased, are all among
-- $letters (a pattern: the letters and digits an id folding alike can hold; without this,
-- 700,000 ids in another script were each folded in Python, 2.6 s an action).
SELECT memory_id FROM entries
WHERE status <> 'erased'
  AND (lower(trim(memory_id)) IN (SELECT lower(trim(unnest($ids::VARCHAR[]))))
       OR (strlen(memory_id) <> length(memory_id)
           AND regexp_full_match(lower(regexp_replace(memory_id, '[^A-Za-z0-9]', '', 'g')),
                                 $letters)))
ORDER BY memory_id

-- name: erase_descendants
-- Everything derived from $ids in any version: an entry that once cited an erased entry
-- holds what it was derived from, even if it cites something else now.
WITH RECURSIVE cites AS (
    SELECT DISTINCT memory_id AS src, unnest(justification) AS dst FROM versions
    WHERE justification IS NOT NULL AND len(justification) > 0
), down(id) AS (
    SELECT src FROM cites WHERE dst IN (SELECT unnest($ids::VARCHAR[]))
    UNION
    SELECT c.src FROM down JOIN cites c ON c.dst = down.id
)
SELECT id FROM down WHERE id NOT IN (SELECT unnest($ids::VARCHAR[])) ORDER BY id

-- name: erase_entries
-- Current status, kind and retention of entries considered for erasure.
SELECT memory_id, status, kind, retention FROM entries
WHERE memory_id IN (SELECT unnest($ids::VARCHAR[])) ORDER BY memory_id

-- name: erase_seqs
-- The events of entries to erase whose bodies still hold their states.
SELECT seq FROM versions
WHERE memory_id IN (SELECT unnest($ids::VARCHAR[])) AND NOT redacted ORDER BY seq

-- name: erase_actor_events
-- How many events name data subject $subject as their actor (or its principal: `user:42/chat`):
-- the envelope keeps the actor through an erasure (DESIGN §6), so the erasure says so.
SELECT count(*) FROM versions WHERE actor = $subject OR split_part(actor, '/', 1) = $subject

-- name: erase_kept_reasons
-- The reasons of events an erasure of $ids keeps (other entries' actions), in seq order: none
-- may quote what it erases (erasure._check_kept_reasons).
SELECT seq, memory_id, reason FROM versions
WHERE reason IS NOT NULL AND NOT coalesce(redacted, false)
  AND memory_id NOT IN (SELECT unnest($ids::VARCHAR[]))
ORDER BY seq

-- name: suppressed_subjects
-- The suppression list (DESIGN §6): salted digests of erased subjects, from erase events.
SELECT DISTINCT subject_salt, subject_digest FROM versions
WHERE op = 'erase' AND subject_digest IS NOT NULL AND subject_salt IS NOT NULL
