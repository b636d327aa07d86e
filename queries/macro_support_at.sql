-- DESIGN §3.2: which summaries are supported as of tk, and each one's effective authority.
-- A summary is supported when it cites something, everything it cites exists, is active,
-- visible from its scope and an observation or a supported summary (a cycle never is), and
-- no observation among its ancestors about its own key has another value. Its effective
-- authority is the least authority in its support tree (itself, the summaries it rests on,
-- the observations they cite). UNION in the recursive parts is the visited guard.
CREATE OR REPLACE MACRO support_at(tk) AS TABLE
WITH RECURSIVE
st AS (
    SELECT memory_id, kind, status, scope, authority, entity, attribute, value, justification
    FROM state_at(tk)
),
summ AS (SELECT * FROM st WHERE kind = 'summary'),
cite AS (
    SELECT s.memory_id AS src, s.scope AS src_scope, unnest(s.justification) AS dst FROM summ s
),
cite_ok AS (
    SELECT c.src, c.dst, t.kind AS dst_kind, t.authority AS dst_authority,
        coalesce(t.status = 'active' AND t.kind IN ('observation', 'summary')
                 AND visible(t.scope, c.src_scope), false) AS ok
    FROM cite c LEFT JOIN st t ON t.memory_id = c.dst
),
edge AS (SELECT memory_id AS src, unnest(justification) AS dst FROM st),
anc(src, dst) AS (
    SELECT src, dst FROM cite
    UNION
    SELECT a.src, e.dst FROM anc a JOIN edge e ON e.src = a.dst
),
contradicted AS (
    SELECT DISTINCT a.src AS memory_id
    FROM anc a
    JOIN st o ON o.memory_id = a.dst AND o.kind = 'observation'
    JOIN summ s ON s.memory_id = a.src
    WHERE o.entity = s.entity AND o.attribute = s.attribute
      AND o.value::VARCHAR IS DISTINCT FROM s.value::VARCHAR
),
local_bad AS (
    SELECT memory_id FROM summ WHERE len(justification) = 0
    UNION SELECT src FROM cite_ok WHERE NOT ok
    UNION SELECT memory_id FROM contradicted
),
sedge AS (SELECT src, dst FROM cite_ok WHERE ok AND dst_kind = 'summary'),
sreach(src, dst) AS (
    SELECT src, dst FROM sedge
    UNION
    SELECT r.src, e.dst FROM sreach r JOIN sedge e ON e.src = r.dst
),
cyclic AS (SELECT src AS memory_id FROM sreach WHERE src = dst),
broken AS (SELECT memory_id FROM local_bad UNION SELECT memory_id FROM cyclic),
unsupported AS (
    SELECT memory_id FROM broken
    UNION SELECT r.src FROM sreach r JOIN broken b ON b.memory_id = r.dst
),
tree AS (
    SELECT memory_id AS src, memory_id AS node FROM summ
    UNION ALL SELECT src, dst FROM sreach
),
floor_authority AS (
    SELECT t.src AS memory_id,
        least(min(n.authority), min(c.dst_authority) FILTER (WHERE c.dst_kind = 'observation'))
            AS eff_authority
    FROM tree t
    JOIN summ n ON n.memory_id = t.node
    LEFT JOIN cite_ok c ON c.src = t.node
    GROUP BY t.src
)
SELECT s.memory_id, u.memory_id IS NULL AS supported,
    CASE WHEN u.memory_id IS NULL THEN f.eff_authority END AS eff_authority
FROM summ s
LEFT JOIN unsupported u ON u.memory_id = s.memory_id
LEFT JOIN floor_authority f ON f.memory_id = s.memory_id
