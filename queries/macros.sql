-- The belief rule (DESIGN §3) as DuckDB macros, each defined after those it uses
-- (load.SETUP runs them in this order).

-- name: macro_visible
-- An entry in `entry_scope` is visible from context `ctx` when its scope is ctx or an
-- ancestor of it, segment-wise ("" is global and visible everywhere).
CREATE OR REPLACE MACRO visible(entry_scope, ctx) AS
    entry_scope = '' OR ctx = entry_scope OR starts_with(ctx, entry_scope || '/')

-- name: macro_state_at
-- DESIGN §3.1: the state of each entry is the after of its last event (by seq) with at <= tk.
CREATE OR REPLACE MACRO state_at(tk) AS TABLE
SELECT v.*
FROM versions v
JOIN (SELECT memory_id, max(seq) AS seq FROM versions WHERE "at" <= tk GROUP BY memory_id) last
  ON v.memory_id = last.memory_id AND v.seq = last.seq
WHERE v.entity IS NOT NULL AND v.malformed IS NULL    -- a malformed entry is never judged

-- name: macro_support_at
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

-- name: macro_judged_at
-- Every keyed entry as of tk with what the belief rule needs to judge it: whether it is
-- supported (observations are; claims and inferences never need to be) and its effective
-- authority (DESIGN §3.2).
CREATE OR REPLACE MACRO judged_at(tk) AS TABLE
SELECT s.*,
    coalesce(p.supported, s.kind <> 'summary') AS supported,
    coalesce(p.eff_authority, s.authority) AS eff_authority
FROM state_at(tk) s
LEFT JOIN support_at(tk) p ON p.memory_id = s.memory_id

-- name: macro_pre_reason
-- DESIGN §3.4: why an entry is not a candidate in context ctx, the first reason that applies,
-- or NULL when it is a candidate (the outranked:* reasons need the winner, see rivals in beliefs.sql).
CREATE OR REPLACE MACRO pre_reason(status, kind, scope, observed_at, valid_from, valid_to,
                                   supported, ctx, tk, tv) AS
CASE
    WHEN status <> 'active' THEN 'status:' || status
    WHEN kind = 'claim' THEN 'kind:claim'
    WHEN kind = 'inference' THEN 'kind:inference'
    WHEN NOT visible(scope, ctx) THEN 'out_of_scope'
    WHEN observed_at > tk THEN 'not_yet_known'
    WHEN tv < coalesce(valid_from, observed_at) THEN 'not_yet_valid'
    WHEN valid_to IS NOT NULL AND tv >= valid_to THEN 'validity_ended'
    WHEN kind = 'summary' AND NOT supported THEN 'unsupported_summary'
END

-- name: macro_beliefs_in
-- DESIGN §3: the beliefs of the judged entries (table `judged`, as of tk) at valid time tv.
-- ctx NULL: the store-wide table, one row per (S, entity, attribute) for every scope S that
-- holds an entry about the key, answering context S; otherwise one row per key for context
-- ctx. A key with no candidate has no row. focus: only the keys in focus_keys.
-- The winner is the greatest (effective authority, scope depth, observed_at, id); markers
-- name the entries that cause them.
CREATE OR REPLACE MACRO beliefs_in(tk, tv, ctx, focus) AS TABLE
WITH
keyed AS (
    SELECT * FROM judged
    WHERE NOT focus OR (entity, attribute) IN (SELECT (entity, attribute) FROM focus_keys)
),
contexts AS (
    SELECT DISTINCT entity, attribute, coalesce(ctx, scope) AS context FROM keyed
),
cand AS (
    SELECT c.context, j.*
    FROM contexts c
    JOIN keyed j ON j.entity = c.entity AND j.attribute = c.attribute
    WHERE j.status = 'active' AND j.kind IN ('observation', 'summary')
      AND pre_reason(j.status, j.kind, j.scope, j.observed_at, j.valid_from, j.valid_to,
                     j.supported, c.context, tk, tv) IS NULL
),
ranked AS (
    SELECT *,
        row_number() OVER w AS rk,
        count(*) OVER (PARTITION BY context, entity, attribute) AS candidates
    FROM cand
    WINDOW w AS (PARTITION BY context, entity, attribute
                 ORDER BY eff_authority DESC, depth DESC, observed_at DESC, memory_id DESC)
),
win AS (SELECT * FROM ranked WHERE rk = 1),
contested AS (
    SELECT w.context, w.entity, w.attribute, list(c.memory_id ORDER BY c.memory_id) AS ids
    FROM win w
    JOIN ranked c ON c.context = w.context AND c.entity = w.entity AND c.attribute = w.attribute
    WHERE c.rk > 1 AND c.eff_authority = w.eff_authority AND c.depth = w.depth
      AND c.value::VARCHAR IS DISTINCT FROM w.value::VARCHAR AND c.principal <> w.principal
      AND coalesce(c.valid_from, c.observed_at) < coalesce(w.valid_to, 'infinity'::TIMESTAMPTZ)
      AND coalesce(w.valid_from, w.observed_at) < coalesce(c.valid_to, 'infinity'::TIMESTAMPTZ)
    GROUP BY ALL
),
vetoed AS (
    SELECT w.context, w.entity, w.attribute, list(c.memory_id ORDER BY c.memory_id) AS ids
    FROM win w
    JOIN ranked c ON c.context = w.context AND c.entity = w.entity AND c.attribute = w.attribute
    WHERE c.rk > 1 AND c.observed_at > w.observed_at AND c.eff_authority < w.eff_authority
      AND c.value::VARCHAR IS DISTINCT FROM w.value::VARCHAR
    GROUP BY ALL
),
disagree AS (
    SELECT w.context, w.entity, w.attribute,
        list(j.memory_id ORDER BY j.memory_id) FILTER (WHERE j.kind = 'claim') AS claim_ids,
        list(j.memory_id ORDER BY j.memory_id) FILTER (WHERE j.kind = 'inference') AS inference_ids
    FROM win w
    JOIN keyed j ON j.entity = w.entity AND j.attribute = w.attribute
    WHERE j.kind IN ('claim', 'inference') AND j.status IN ('active', 'held')
      AND visible(j.scope, w.context) AND j.observed_at <= tk
      AND coalesce(j.valid_from, j.observed_at) <= tv AND (j.valid_to IS NULL OR tv < j.valid_to)
      AND j.value::VARCHAR IS DISTINCT FROM w.value::VARCHAR
    GROUP BY ALL
),
marked AS (
    SELECT w.context AS scope, w.scope AS belief_scope, w.entity, w.attribute, w.value,
        w.memory_id, w.kind, w.source, w.eff_authority AS authority, w.observed_at,
        w.candidates,
        coalesce(ct.ids, []) AS contested_ids,
        coalesce(d.claim_ids, []) AS claim_ids,
        coalesce(d.inference_ids, []) AS inference_ids,
        coalesce(vt.ids, []) AS vetoed_ids
    FROM win w
    LEFT JOIN contested ct USING (context, entity, attribute)
    LEFT JOIN vetoed vt USING (context, entity, attribute)
    LEFT JOIN disagree d USING (context, entity, attribute)
)
SELECT m.*,
    list_filter([CASE WHEN len(m.contested_ids) > 0 THEN 'contested' END,
                 CASE WHEN len(m.claim_ids) > 0 THEN 'claim_disagrees' END,
                 CASE WHEN len(m.inference_ids) > 0 THEN 'inference_disagrees' END,
                 CASE WHEN len(m.vetoed_ids) > 0 THEN 'vetoed_newer' END], lambda x: x IS NOT NULL)
        AS markers,
    coalesce((SELECT list(n.scope ORDER BY n.scope) FROM marked n
              WHERE n.entity = m.entity AND n.attribute = m.attribute
                AND n.scope <> m.scope AND visible(m.scope, n.scope)
                AND n.memory_id <> m.memory_id), []) AS overridden_in
FROM marked m
