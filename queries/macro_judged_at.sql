-- Every keyed entry as of tk with what the belief rule needs to judge it: whether it is
-- supported (observations are; claims and inferences never need to be) and its effective
-- authority (DESIGN §3.2).
CREATE OR REPLACE MACRO judged_at(tk) AS TABLE
SELECT s.*,
    coalesce(p.supported, s.kind <> 'summary') AS supported,
    coalesce(p.eff_authority, s.authority) AS eff_authority
FROM state_at(tk) s
LEFT JOIN support_at(tk) p ON p.memory_id = s.memory_id
