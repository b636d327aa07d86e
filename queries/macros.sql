-- The belief rule (DESIGN §3) as DuckDB macros, each defined after those it uses
-- (load.SETUP runs them in this order).

-- name: macro_visible
-- An entry in `entry_scope` is visible from context `ctx` when its scope is ctx or an
-- ancestor of it, segment-wise ("" is global and visible everywhere).
CREATE OR REPLACE MACRO visible(entry_scope, ctx) AS
    entry_scope = '' OR ctx = entry_scope OR starts_with(ctx, entry_scope || '/');
-- The scopes visible from ctx, as a list: "", ctx and each prefix of ctx ending before a "/"
-- (visible(s, ctx) exactly when s is in it). Joining on these instead of testing visible()
-- on every pair of a key's entries keeps a key held in 20,000 scopes linear.
CREATE OR REPLACE MACRO scopes_seen_from(ctx) AS
    list_distinct(list_prepend('', list_transform(range(1, len(string_split(ctx, '/')) + 1),
        lambda k: array_to_string(string_split(ctx, '/')[1:k], '/'))))

-- name: macro_state_replay
-- DESIGN §3.1: the state of each entry is the after of its last event (by seq) with at <= tk.
CREATE OR REPLACE MACRO state_replay(tk) AS TABLE
SELECT v.*
FROM versions v
JOIN (SELECT memory_id, max(seq) AS seq FROM versions WHERE "at" <= tk GROUP BY memory_id) last
  ON v.memory_id = last.memory_id AND v.seq = last.seq
WHERE v.entity IS NOT NULL AND v.malformed IS NULL    -- a malformed entry is never judged

-- name: macro_state_at
-- state_replay(tk), read from `entries` (each entry's last version) when tk is at or after
-- every event's `at` (`now`, beliefs.at_head), as it is for "now": then each entry's last
-- event by seq is its last one, which `entries` already holds. Replaying a million versions
-- to find it is a wide hash join: at 1M events (bench/out/store-1m) judging every entry took
-- 0.8 s and peaked at 656-676 MB that way, 0.6 s and 629 MB this way. `now` comes as a
-- constant, so that the planner drops the branch not taken: decided here by a subquery, both
-- branches ran (a 1M-event store of long values: 1.3 GB against 0.46 GB for one statement).
CREATE OR REPLACE MACRO state_at(tk, now) AS TABLE
SELECT * EXCLUDE (state) FROM entries
WHERE entity IS NOT NULL AND malformed IS NULL AND now
UNION ALL
SELECT * FROM state_replay(tk) WHERE NOT now

-- name: macro_support_at
-- DESIGN §3.2: which summaries are supported as of tk, and each one's effective authority.
-- A summary is supported when it cites something, everything it cites exists, is active,
-- visible from its scope and an observation or a supported summary (a cycle never is), and
-- no observation among its ancestors about its own key has another value. Its effective
-- authority is the least authority in its support tree (itself, the summaries it rests on,
-- the observations they cite).
-- No part holds a row per (summary, ancestor): a chain of 20,000 summaries, each citing the
-- one before, once needed tens of GB. No part holds a row per entry either: the walk reads the
-- store's state four times, each keeping only what it needs (a part with every entry's state
-- and digest took 750 MB at 4.25M entries and put a warm `beliefs` at 894 MB):
-- - `summ`: the summaries; `edge`: every entry's citations; `cited`: the entries cited;
-- - `keyed`: the observations and summaries of the keys that have a summary, the only rows
--   whose values are compared, each with its value's digest;
-- - `torn`: the keys whose observations and summaries hold two or more values (only there can
--   an observation contradict a summary: most keys agree, and a key summarized above a long
--   shared chain, a rolling summary, is then never walked at all);
-- - `done`: a topological walk up the summary graph (Kahn's algorithm), contradictions left
--   aside: each summary counts the cited summaries not yet supported and is supported when
--   that count reaches 0, which a summary in or above a cycle, or above an unsupported one,
--   never does; it carries the least authority below. `alone`: the summaries it supports;
-- - `below`: every node a summary of such a key reaches, with the summary's key, from the
--   summaries in `alone` only (one not there is unsupported whatever it rests on, so it is
--   never walked: on a dense graph of 2,000 entries citing 60 each, inferences among them,
--   the walk from every summary took 15 s and 2.3 GB);
-- - `seen`: inside `below`, walking up from those observations, what values of the key each
--   node rests on, kept as one value or "two or more" (a row changes at most twice: USING
--   KEY keeps one row a node and key; a value is the SHA-256 of its JSON text, of '' for
--   null: values are compared, never carried, since a store of long values once took 2 GB
--   here, holding copies of them per key);
-- - `fall`: the summaries in `alone`, those contradicted and every summary resting on one
--   marked bad (walked up from them; with none, no round): the rest are supported.
CREATE OR REPLACE MACRO support_at(tk, now) AS TABLE
WITH RECURSIVE
summ AS MATERIALIZED (
    SELECT memory_id, status, scope, authority, entity, attribute,
        sha256(coalesce(value::VARCHAR, '')) AS value_digest, justification
    FROM state_at(tk, now) WHERE kind = 'summary'
),
edge AS MATERIALIZED (
    SELECT DISTINCT memory_id AS src, unnest(justification) AS dst
    FROM state_at(tk, now) WHERE len(justification) > 0
),
cited AS MATERIALIZED (
    SELECT memory_id, kind, status, scope, authority
    FROM state_at(tk, now) WHERE memory_id IN (SELECT dst FROM edge)
),
keyed AS MATERIALIZED (
    SELECT memory_id, kind, entity, attribute, sha256(coalesce(value::VARCHAR, '')) AS value_digest
    FROM state_at(tk, now)
    WHERE kind IN ('observation', 'summary')
      AND (entity, attribute) IN (SELECT entity, attribute FROM summ)
),
cite AS (
    SELECT s.memory_id AS src, s.scope AS src_scope, unnest(s.justification) AS dst FROM summ s
),
cite_ok AS MATERIALIZED (
    SELECT c.src, c.dst, t.kind AS dst_kind, t.authority AS dst_authority,
        coalesce(t.status = 'active' AND t.kind IN ('observation', 'summary')
                 AND visible(t.scope, c.src_scope), false) AS ok
    FROM cite c LEFT JOIN cited t ON t.memory_id = c.dst
),
torn AS MATERIALIZED (
    SELECT entity, attribute, row_number() OVER () AS kid FROM (
        SELECT entity, attribute FROM keyed
        GROUP BY entity, attribute
        HAVING bool_or(kind = 'summary') AND bool_or(kind = 'observation')
           AND count(DISTINCT value_digest) > 1
    )
),
-- The walk below numbers what it carries (a node, a key, a value: equal numbers exactly when
-- equal ids, keys, digests), so that its rows hold integers, not strings: a store of 658k
-- entries with 1M citations once took 1.4 GB here. Only the entries it can reach are
-- numbered: those cited, and those of a key with a summary (every summary among them). An
-- entry that cites and is neither is never in `below`, so its citations carry nothing.
vals AS MATERIALIZED (
    SELECT digest, row_number() OVER () AS vid FROM (
        SELECT DISTINCT s.value_digest AS digest FROM keyed s JOIN torn t USING (entity, attribute)
    )
),
ids AS MATERIALIZED (
    SELECT memory_id, row_number() OVER () AS nid FROM (
        SELECT memory_id FROM cited UNION SELECT memory_id FROM keyed
    )
),
-- A citation of an id the store lacks leads nowhere (no value, no citations of its own).
iedge AS MATERIALIZED (
    SELECT a.nid AS src, b.nid AS dst
    FROM edge e JOIN ids a ON a.memory_id = e.src JOIN ids b ON b.memory_id = e.dst
),
seed AS MATERIALIZED (
    SELECT i.nid, t.kid, v.vid AS value
    FROM keyed o JOIN torn t USING (entity, attribute) JOIN vals v ON v.digest = o.value_digest
    JOIN ids i ON i.memory_id = o.memory_id
    WHERE o.kind = 'observation'
),
-- The summaries of those keys, numbered, with their own value's number.
tsumm AS MATERIALIZED (
    SELECT i.nid, t.kid, v.vid AS value, s.memory_id
    FROM summ s JOIN torn t USING (entity, attribute) JOIN vals v ON v.digest = s.value_digest
    JOIN ids i ON i.memory_id = s.memory_id
),
local_bad AS MATERIALIZED (
    SELECT memory_id FROM summ WHERE len(justification) = 0
    UNION SELECT src FROM cite_ok WHERE NOT ok
),
sedge AS MATERIALIZED (SELECT DISTINCT src, dst FROM cite_ok WHERE ok AND dst_kind = 'summary'),
obs_floor AS MATERIALIZED (
    SELECT src, min(dst_authority) AS authority FROM cite_ok WHERE dst_kind = 'observation'
    GROUP BY src
),
waits AS MATERIALIZED (SELECT src, count(*) AS n FROM sedge GROUP BY src),
citers AS MATERIALIZED (SELECT dst, list(src) AS srcs FROM sedge GROUP BY dst),
done(memory_id, waiting, eff_authority, citers) USING KEY (memory_id) AS (
    SELECT s.memory_id, coalesce(w.n, 0), least(s.authority, f.authority), coalesce(c.srcs, [])
    FROM summ s
    LEFT JOIN waits w ON w.src = s.memory_id
    LEFT JOIN obs_floor f ON f.src = s.memory_id
    LEFT JOIN citers c ON c.dst = s.memory_id
    WHERE s.memory_id NOT IN (SELECT memory_id FROM local_bad)
    UNION
    -- The citers of the summaries supported last round, each one looked up by its key.
    SELECT p.memory_id, any_value(p.waiting) - count(*),
        least(any_value(p.eff_authority), min(n.eff_authority)), any_value(p.citers)
    FROM (SELECT unnest(citers) AS src, eff_authority FROM done WHERE waiting = 0) n
    JOIN recurring.done p ON p.memory_id = n.src
    GROUP BY p.memory_id
),
alone AS MATERIALIZED (
    SELECT memory_id, eff_authority, citers FROM done WHERE waiting = 0
),
below(node, kid) AS (
    SELECT nid, kid FROM tsumm
    WHERE kid IN (SELECT kid FROM seed) AND memory_id IN (SELECT memory_id FROM alone)
    UNION
    SELECT e.dst, b.kid FROM below b JOIN iedge e ON e.src = b.node
),
cited_by AS MATERIALIZED (SELECT dst, list(src) AS srcs FROM iedge GROUP BY dst),
seen(node, kid, one, many, citers) USING KEY (node, kid) AS (
    SELECT b.node, b.kid, CASE WHEN d.lo = d.hi THEN d.lo END,
        coalesce(d.lo <> d.hi, false), coalesce(c.srcs, [])
    FROM below b
    LEFT JOIN (
        SELECT e.src, o.kid, min(o.value) AS lo, max(o.value) AS hi
        FROM iedge e JOIN seed o ON o.nid = e.dst GROUP BY ALL
    ) d ON d.src = b.node AND d.kid = b.kid
    LEFT JOIN cited_by c ON c.dst = b.node
    UNION
    -- What the nodes that changed last round have seen, passed to their citers (each looked
    -- up by its key; a citer outside `below` has no row and takes nothing).
    -- (min and max of what the citers carry, not a list of it: a list a group made each
    -- round was most of the walk's time on a dense graph)
    SELECT node, kid, CASE WHEN NOT many THEN coalesce(was_one, lo) END, many, citers FROM (
        SELECT node, kid, citers, was_one, was_many, lo,
            got_many OR coalesce(lo <> hi OR lo <> was_one, false) AS many
        FROM (
            SELECT p.node, p.kid, any_value(p.citers) AS citers,
                any_value(p.one) AS was_one, any_value(p.many) AS was_many,
                bool_or(n.many) AS got_many, min(n.one) AS lo, max(n.one) AS hi
            FROM (SELECT unnest(citers) AS src, kid, one, many FROM seen
                  WHERE many OR one IS NOT NULL) n
            JOIN recurring.seen p ON p.node = n.src AND p.kid = n.kid
            GROUP BY p.node, p.kid
        )
    )
    WHERE NOT was_many AND (many OR coalesce(was_one, lo) IS DISTINCT FROM was_one)
),
contradicted AS (
    SELECT s.memory_id
    FROM tsumm s JOIN seen r ON r.node = s.nid AND r.kid = s.kid
    WHERE r.many OR r.one <> s.value
),
fall(memory_id, bad, citers) USING KEY (memory_id) AS (
    SELECT memory_id, memory_id IN (SELECT memory_id FROM contradicted), citers FROM alone
    UNION
    -- The citers of the summaries found bad last round, each looked up by its key (a citer
    -- `done` did not support has no row).
    SELECT memory_id, true, citers FROM (
        SELECT p.memory_id, any_value(p.bad) AS was_bad, any_value(p.citers) AS citers
        FROM (SELECT unnest(citers) AS src FROM fall WHERE bad) n
        JOIN recurring.fall p ON p.memory_id = n.src
        GROUP BY p.memory_id
    )
    WHERE NOT was_bad
)
SELECT s.memory_id, coalesce(NOT f.bad, false) AS supported,
    CASE WHEN NOT f.bad THEN d.eff_authority END AS eff_authority
FROM summ s
LEFT JOIN fall f ON f.memory_id = s.memory_id
LEFT JOIN alone d ON d.memory_id = s.memory_id

-- name: macro_key_in_range
-- Whether key (entity, attribute) lies in the range from (lo_entity, lo_attribute) up to but
-- not including (hi_entity, hi_attribute), in the order beliefs are listed (a NULL bound: no
-- bound on that side). A keyed entry's entity and attribute are never NULL.
CREATE OR REPLACE MACRO key_in_range(entity, attribute, lo_entity, lo_attribute, hi_entity,
                                     hi_attribute) AS
    (lo_entity IS NULL OR (entity, attribute) >= (lo_entity, lo_attribute))
    AND (hi_entity IS NULL OR (entity, attribute) < (hi_entity, hi_attribute))

-- name: macro_judged_at
-- Every keyed entry as of tk with what the belief rule needs to judge it: whether it is
-- supported (observations are; claims and inferences never need to be) and its effective
-- authority (DESIGN §3.2). Only the fields the rule and a key's rivals read: with all 36
-- fields of every entry sorted and windowed, judging the 1M bench store peaked at 629 MB;
-- with these, 412 MB (`beliefs --json` 670 -> 595 MB).
CREATE OR REPLACE MACRO judged_at(tk, now) AS TABLE
SELECT s.memory_id, s.entity, s.attribute, s.scope, s.depth, s.value, s.kind, s.source,
    s.principal, s.authority, s.status, s.observed_at, s.valid_from, s.valid_to,
    coalesce(p.supported, s.kind <> 'summary') AS supported,
    coalesce(p.eff_authority, s.authority) AS eff_authority
FROM state_at(tk, now) s
LEFT JOIN support_at(tk, now) p ON p.memory_id = s.memory_id

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
-- ctx. A key with no candidate has no row. focus: only the keys in focus_keys. lo_*, hi_*:
-- only the keys in that range (key_in_range; each key's rows depend on that key's entries
-- alone, so the ranges together are the whole table: beliefs.materialize).
-- The winner is the greatest (effective authority, scope depth, observed_at, id); markers
-- name the entries that cause them.
CREATE OR REPLACE MACRO beliefs_in(tk, tv, ctx, focus, lo_entity := NULL, lo_attribute := NULL,
                                   hi_entity := NULL, hi_attribute := NULL) AS TABLE
WITH
keyed AS (
    SELECT * FROM judged
    WHERE (NOT focus OR (entity, attribute) IN (SELECT (entity, attribute) FROM focus_keys))
      AND key_in_range(entity, attribute, lo_entity, lo_attribute, hi_entity, hi_attribute)
),
contexts AS (
    SELECT DISTINCT entity, attribute, coalesce(ctx, scope) AS context FROM keyed
),
seen_scopes AS MATERIALIZED (
    SELECT entity, attribute, context, unnest(scopes_seen_from(context)) AS scope FROM contexts
),
-- An entry's candidacy does not depend on the context it is judged in, past being visible
-- from it (pre_reason's other reasons read the entry, tk and tv alone): each scope's candidates
-- are ranked once, and a context's winner is the best of the winners of the scopes it sees.
-- The scopes a context sees have distinct depths, so a rival that ties with the winner on
-- depth (contested) lies in the winner's scope. Ranking the candidates of every context put a
-- key's global entries in every context of the key: 3,000 of them under 1,500 scopes were
-- 4.5M rows ranked (126 s, 2.2 GB for `beliefs` of an 18,000-event store; helper-82).
cand AS MATERIALIZED (
    SELECT j.*,
        row_number() OVER (PARTITION BY j.entity, j.attribute, j.scope
                           ORDER BY eff_authority DESC, depth DESC, observed_at DESC, memory_id DESC) AS srk,
        count(*) OVER (PARTITION BY j.entity, j.attribute, j.scope) AS in_scope
    FROM keyed j
    WHERE j.status = 'active' AND j.kind IN ('observation', 'summary')
      AND pre_reason(j.status, j.kind, j.scope, j.observed_at, j.valid_from, j.valid_to,
                     j.supported, j.scope, tk, tv) IS NULL
),
win AS MATERIALIZED (
    SELECT c.context, j.* EXCLUDE (srk, in_scope),
        (sum(j.in_scope) OVER (PARTITION BY c.context, c.entity, c.attribute))::BIGINT AS candidates
    FROM seen_scopes c
    JOIN cand j ON j.entity = c.entity AND j.attribute = c.attribute AND j.scope = c.scope
    WHERE j.srk = 1
    QUALIFY row_number() OVER (PARTITION BY c.context, c.entity, c.attribute
                               ORDER BY j.eff_authority DESC, j.depth DESC, j.observed_at DESC,
                                        j.memory_id DESC) = 1
),
-- Each winner once, with each scope a context it wins in sees: what vetoes or disagrees with
-- it there does not depend on which of those contexts asks.
winners AS (
    SELECT DISTINCT memory_id, entity, attribute, scope, eff_authority, depth,
        value::VARCHAR AS value_text, principal, valid_from, valid_to, observed_at
    FROM win
),
win_seen AS MATERIALIZED (
    SELECT DISTINCT w.memory_id, w.entity, w.attribute, w.observed_at, w.eff_authority,
        w.value::VARCHAR AS value_text, c.scope AS seen
    FROM win w
    JOIN seen_scopes c ON c.entity = w.entity AND c.attribute = w.attribute AND c.context = w.context
),
contested AS (
    SELECT w.memory_id, list(c.memory_id ORDER BY c.memory_id) AS ids
    FROM winners w
    JOIN cand c ON c.entity = w.entity AND c.attribute = w.attribute AND c.scope = w.scope
    WHERE c.memory_id <> w.memory_id AND c.eff_authority = w.eff_authority AND c.depth = w.depth
      AND c.value::VARCHAR IS DISTINCT FROM w.value_text AND c.principal <> w.principal
      AND coalesce(c.valid_from, c.observed_at) < coalesce(w.valid_to, 'infinity'::TIMESTAMPTZ)
      AND coalesce(w.valid_from, w.observed_at) < coalesce(c.valid_to, 'infinity'::TIMESTAMPTZ)
    GROUP BY w.memory_id
),
-- (winner, scope seen, an entry of that scope that marks the winner, which mark)
marks AS (
    SELECT w.memory_id AS winner, w.seen, c.memory_id, 'vetoed' AS what
    FROM win_seen w
    JOIN cand c ON c.entity = w.entity AND c.attribute = w.attribute AND c.scope = w.seen
    WHERE c.observed_at > w.observed_at AND c.eff_authority < w.eff_authority
      AND c.value::VARCHAR IS DISTINCT FROM w.value_text
    UNION ALL
    SELECT w.memory_id, w.seen, j.memory_id, j.kind
    FROM win_seen w
    JOIN keyed j ON j.entity = w.entity AND j.attribute = w.attribute AND j.scope = w.seen
    WHERE j.kind IN ('claim', 'inference') AND j.status IN ('active', 'held')
      AND j.observed_at <= tk
      AND coalesce(j.valid_from, j.observed_at) <= tv AND (j.valid_to IS NULL OR tv < j.valid_to)
      AND j.value::VARCHAR IS DISTINCT FROM w.value_text
),
marked_by AS (
    SELECT w.context, w.entity, w.attribute,
        list(m.memory_id ORDER BY m.memory_id) FILTER (WHERE m.what = 'vetoed') AS vetoed_ids,
        list(m.memory_id ORDER BY m.memory_id) FILTER (WHERE m.what = 'claim') AS claim_ids,
        list(m.memory_id ORDER BY m.memory_id) FILTER (WHERE m.what = 'inference') AS inference_ids
    FROM win w
    JOIN seen_scopes v ON v.entity = w.entity AND v.attribute = w.attribute AND v.context = w.context
    JOIN marks m ON m.winner = w.memory_id AND m.seen = v.scope
    GROUP BY ALL
),
marked AS (
    SELECT w.context AS scope, w.scope AS belief_scope, w.entity, w.attribute, w.value,
        w.memory_id, w.kind, w.source, w.eff_authority AS authority, w.observed_at,
        w.candidates,
        coalesce(ct.ids, []) AS contested_ids,
        coalesce(d.claim_ids, []) AS claim_ids,
        coalesce(d.inference_ids, []) AS inference_ids,
        coalesce(d.vetoed_ids, []) AS vetoed_ids
    FROM win w
    LEFT JOIN contested ct ON ct.memory_id = w.memory_id
    LEFT JOIN marked_by d USING (context, entity, attribute)
),
-- The narrower contexts whose belief about the key is another entry: each row of `marked`
-- joined to the contexts it can see (scopes_seen_from), not to every context of its key.
narrower AS (
    SELECT m.scope, m.entity, m.attribute, list(n.scope ORDER BY n.scope) AS scopes
    FROM (SELECT scope, entity, attribute, memory_id, unnest(scopes_seen_from(scope)) AS seen
          FROM marked) n
    JOIN marked m ON m.entity = n.entity AND m.attribute = n.attribute AND m.scope = n.seen
    WHERE n.scope <> m.scope AND n.memory_id <> m.memory_id
    GROUP BY m.scope, m.entity, m.attribute
)
SELECT m.*,
    list_filter([CASE WHEN len(m.contested_ids) > 0 THEN 'contested' END,
                 CASE WHEN len(m.claim_ids) > 0 THEN 'claim_disagrees' END,
                 CASE WHEN len(m.inference_ids) > 0 THEN 'inference_disagrees' END,
                 CASE WHEN len(m.vetoed_ids) > 0 THEN 'vetoed_newer' END], lambda x: x IS NOT NULL)
        AS markers,
    coalesce(o.scopes, []) AS overridden_in
FROM marked m
LEFT JOIN narrower o ON o.scope = m.scope AND o.entity = m.entity AND o.attribute = m.attribute
