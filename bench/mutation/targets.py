"""What the mutation report mutates, and which test files judge each part.

Test files are listed fast-first (a run stops at the first failure, so most mutants die in
the first file); files that do not exist in the checkout are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from workspace import ROOT


@dataclass(frozen=True)
class Target:
    name: str
    files: tuple[str, ...]          # what is mutated (project paths)
    tests: tuple[str, ...]          # the test files that judge it
    statements: frozenset[str] | None = None   # SQL: only these statements (None: all)

    def test_files(self) -> list[str]:
        return [t for t in self.tests if (ROOT / t.split("::")[0]).exists()]


# The core's Python (mutmut).
PYTHON = [
    Target("chain", ("inspector/store/chain.py",),
           ("tests/unit/test_audit.py", "tests/unit/test_log.py")),
    Target("audit", ("inspector/store/audit.py",),
           ("tests/unit/test_audit.py", "tests/cli/test_erasure.py",
            "tests/unit/test_audit_parallel.py")),
    Target("gate", ("inspector/store/gate.py",),
           ("tests/unit/test_gate.py", "tests/unit/test_policy.py", "tests/cli/test_gate_and_scan.py",
            "tests/unit/test_queries.py", "tests/cli/test_erasure.py")),
    Target("actions", ("inspector/store/actions.py",),
           ("tests/unit/test_core_direct.py", "tests/unit/test_entries.py", "tests/unit/test_mut_actions.py",
            "tests/unit/test_queries.py", "tests/cli/test_actions.py", "tests/cli/test_revert.py")),
    Target("erasure", ("inspector/store/erasure.py",),
           ("tests/unit/test_erasure_match.py", "tests/unit/test_mut_erasure.py",
            "tests/unit/test_erasure_guarantees.py",
            "tests/cli/test_erasure.py", "tests/crash/test_erasure_crash.py",
            "tests/crash/test_crash.py::test_a_failed_erasure_leaves_no_temp_file",
            "tests/crash/test_crash.py::test_an_erasure_whose_last_fsync_fails_stands",
            "tests/cli/test_report.py::test_erasure_deletes_the_reports_that_mention_its_subject")),
    Target("load", ("inspector/store/load.py", "inspector/store/coldload.py"),
           ("tests/unit/test_mut_load.py", "tests/unit/test_log.py", "tests/unit/test_queries.py",
            "tests/unit/test_hostile_entries.py", "tests/unit/test_strict_scan.py")),
]

BELIEF_MACROS = frozenset({"macro_visible", "macro_state_at", "macro_support_at", "macro_judged_at",
                           "macro_pre_reason", "macro_beliefs_in"})

# The SQL of the belief rule, lineage, actions and erasure (the mutator in sqlmut.py).
SQL = [
    Target("beliefs.sql", ("queries/beliefs.sql",),
           ("tests/unit/test_belief_order.py", "tests/unit/test_mut_belief_patch.py",
            "tests/unit/test_belief_support.py",
            "tests/unit/test_queries.py", "tests/unit/test_beliefs_differential.py",
            "tests/cli/test_read_commands.py", "tests/cli/test_actions.py",
            "tests/unit/test_view.py::test_a_patch_judges_again_what_rests_on_a_changed_entry")),
    Target("macros.sql", ("queries/macros.sql",),
           ("tests/unit/test_belief_order.py", "tests/unit/test_belief_support.py",
            "tests/unit/test_mut_belief_patch.py",
            "tests/unit/test_queries.py", "tests/unit/test_beliefs_differential.py",
            "tests/cli/test_read_commands.py"),
           BELIEF_MACROS),
    Target("lineage.sql", ("queries/lineage.sql",),
           ("tests/unit/test_lineage.py", "tests/unit/test_queries.py", "tests/cli/test_read_commands.py",
            "tests/cli/test_actions.py", "tests/cli/test_gate_and_scan.py")),
    Target("actions.sql", ("queries/actions.sql",),
           ("tests/unit/test_entries.py", "tests/unit/test_queries.py", "tests/cli/test_actions.py",
            "tests/cli/test_revert.py")),
    Target("erasure.sql", ("queries/erasure.sql",),
           ("tests/unit/test_erasure_match.py", "tests/unit/test_mut_erasure.py",
            "tests/unit/test_queries.py", "tests/unit/test_erasure_guarantees.py",
            "tests/cli/test_erasure.py")),
]


@dataclass(frozen=True)
class Equivalent:
    """SQL mutants that cannot change any result: not run, listed with the reason. None in a
    field matches anything; `before` and `after` are the changed text as sqlmut reports it."""

    statement: str
    operator: str | None
    before: str | None
    after: str | None
    why: str
    where: str | None = None        # a text the original line must hold

    def matches(self, mutant) -> bool:
        return (self.statement == mutant.statement
                and self.operator in (None, mutant.operator)
                and self.before in (None, " ".join(mutant.before.split()))
                and self.after in (None, " ".join(mutant.after.split()))
                and (self.where is None or self.where in mutant.source_line))


OVERLAP = ("two candidates are both valid at tv, so each one's validity starts before the other's "
           "ends: the overlap test of `contested` holds whether it is written, with < or <=, or not")
EDGE_ORDER = ("readers group the edges by source (the lineage tree, the cycle search, whose "
              "components are sorted): only the order of targets within one source shows")
DEDUPED = "every reader of this part goes through a later UNION (or IN), which drops duplicates"

EQUIVALENT_SQL = [
    Equivalent("judged_add_range", "order", None, None,
               "the physical order of the materialized `judged` table is only for row-group "
               "skipping; every reader orders its own result"),
    Equivalent("beliefs_add_range", "order", None, None,
               "as judged_add_range: the physical order of `beliefs` is only for row-group "
               "skipping; every page orders by pos itself (beliefs_page)"),
    Equivalent("judged_materialize_focus", "order", None, None,
               "as judged_add_range: the physical order of `judged` is only for row-group skipping"),
    Equivalent("focus_ids_fill", "distinct", None, None,
               "the citations feed a recursive UNION, which drops repeats; focus_ids is read only "
               "through `memory_id IN (SELECT …)`"),
    Equivalent("focus_keys_of_ids", "distinct", None, None,
               "the edges of `cites` feed a recursive UNION, which drops repeats",
               "SELECT DISTINCT memory_id AS src"),
    *[Equivalent("focus_keys_of_ids", operator, None, None,
                 "unnest of an empty justification yields no row: the filter only skips rows that "
                 "would give nothing", "len(justification) > 0")
      for operator in ("cmp", "drop")],
    Equivalent("beliefs_patch", "union", "UNION ALL", "UNION",
               "the two parts hold different keys and each has one row per (scope, key): no repeat "
               "to drop"),
    Equivalent("macro_support_at", "drop", "ok AND", None,
               "a summary citing a not-ok summary is in local_bad, so every summary that reaches it "
               "through sedge is unsupported (and gets no effective authority) with or without the "
               "not-ok edge; a cycle through such an edge holds a broken node too",
               "sedge AS MATERIALIZED (SELECT DISTINCT src, dst FROM cite_ok WHERE ok AND"),
    Equivalent("focus_keys_fill", "distinct", None, None,
               "focus_keys is read only through `(entity, attribute) IN (SELECT …)`: a duplicate "
               "pair changes nothing"),
    Equivalent("macro_support_at", "distinct", None, None, DEDUPED,
               "edge AS MATERIALIZED (SELECT DISTINCT memory_id"),
    *[Equivalent("macro_support_at", "union", "UNION", "UNION ALL", DEDUPED, where)
      for where in ("UNION SELECT src FROM cite_ok", "UNION SELECT memory_id FROM contradicted")],
    Equivalent("macro_beliefs_in", "drop", "j.status = 'active' AND", None,
               "pre_reason(…) IS NULL holds only for an active observation or summary (a valid state "
               "always has a status and one of the four kinds; malformed ones never reach judged)"),
    Equivalent("macro_beliefs_in", "drop", "AND j.kind IN ('observation', 'summary')", None,
               "pre_reason(…) IS NULL already excludes claims and inferences"),
    *[Equivalent("macro_beliefs_in", operator, None, None, OVERLAP, where)
      for operator in ("cmp", "drop")
      for where in ("coalesce(c.valid_from, c.observed_at) < coalesce(w.valid_to",
                    "coalesce(w.valid_from, w.observed_at) < coalesce(c.valid_to")],
    *[Equivalent("macro_beliefs_in", operator, before, None,
                 "the winner joined with itself has its own value, which `IS DISTINCT FROM` leaves "
                 "out: rk > 1 (or rk >= 1, or nothing) keeps the same rows", where)
      for operator, before, where in (
          ("cmp", ">", "WHERE c.rk > 1 AND c.eff_authority = w.eff_authority"),
          ("drop", "c.rk > 1 AND", "WHERE c.rk > 1 AND c.eff_authority = w.eff_authority"),
          ("drop", "c.rk > 1 AND", "WHERE c.rk > 1 AND c.observed_at > w.observed_at"))],
    Equivalent("macro_beliefs_in", "drop", "j.kind IN ('claim', 'inference') AND", None,
               "disagree's two lists take only claims and inferences (FILTER), and a key matched by "
               "nothing else gets empty lists through coalesce: no marker changes"),
    Equivalent("macro_state_at", "drop", "v.entity IS NOT NULL AND", None,
               "the last version of an erased entry has no key, kind, value or justification and the "
               "status erased: every reader of state_at leaves it out by one of those"),
    Equivalent("lineage_presence", "drop", "AND e.memory_id = ANY($ids::VARCHAR[])", None,
               "the WHERE keeps only k in $ids and the join needs e = k: e is in $ids anyway"),
    Equivalent("action_select", "drop", "entity IS NOT NULL AND", None,
               "a selector is always given (source, principal or due), and an erased entry has no "
               "source, principal or status active: each selector leaves it out already"),
    Equivalent("action_select", "drop", "AND expires_at IS NOT NULL", None,
               "expires_at <= $now is not true for a NULL expires_at either"),
    Equivalent("lineage_edges", "order", "src, dst", "dst, src", EDGE_ORDER),
    Equivalent("lineage_edges", "order", "src", "src DESC", EDGE_ORDER),
    Equivalent("cycle_core_edges", "order", None, None,
               "its only reader, lineage.cycles, sorts each component and the list of them"),
    Equivalent("cycle_core_init", "distinct", None, None,
               "a repeated edge changes neither the pruning (NOT IN) nor the components found"),
    Equivalent("lineage_roots", "drop", "AND entity IS NOT NULL", None,
               "an erased entry (no entity) has no justification either: len(NULL) = 0 is not true"),
    Equivalent("erase_match", "distinct", None, None,
               "the plan takes dict.fromkeys(matched + descendants): a repeated id changes nothing"),
    Equivalent("erase_descendants", "distinct", None, None,
               "the recursive UNION drops repeated edges"),
    *[Equivalent("erase_descendants", operator, None, None,
                 "the filter on justification only skips rows that unnest would turn into nothing",
                 "justification IS NOT NULL AND len(justification) > 0")
      for operator in ("andor", "drop")],
    Equivalent("erase_descendants", "drop", "id NOT IN (SELECT unnest($ids::VARCHAR[]))", None,
               "its only reader, plan_erasure, takes dict.fromkeys(matched + descendants): a matched "
               "id that also descends from another changes nothing"),
    Equivalent("suppressed_subjects", "distinct", None, None,
               "the suppression list is a set of (salt, digest)"),
    Equivalent("erase_match", "drop", "entity IS NOT NULL AND", None,
               "the versions of an erased entry (bodies replaced, the erase event) have no subject, "
               "entity, scope or principal: no other condition can match them"),
    Equivalent("erase_descendants", "cmp", ">", ">=",
               "unnest of an empty justification yields no row: > 0 and >= 0 keep the same citations",
               "len(justification) > 0"),
]


def equivalent(mutant) -> Equivalent | None:
    return next((e for e in EQUIVALENT_SQL if e.matches(mutant)), None)


@dataclass(frozen=True)
class EquivalentPy:
    """Python mutants that cannot change behaviour: mutmut's name starts with `function` and the
    mutated line (a `+` line of its diff) holds `added`."""

    function: str
    added: str
    why: str

    def matches(self, name: str, diff: str) -> bool:
        added = [line[1:] for line in diff.splitlines()
                 if line.startswith("+") and not line.startswith("+++")]
        return name.startswith(self.function + "__mutmut_") and any(self.added in line for line in added)


CODEC = "codec names are case-insensitive: \"UTF-8\" is \"utf-8\""
QUICK_DIGEST = ("the quick path of _digest_of_body is checked against the recorded digest and "
                "falls back to hashing the parsed body: a wrong slice only costs time")

EQUIVALENT_PY = [
    EquivalentPy("inspector.store.chain.x_line_hash", '.encode("UTF-8")', CODEC),
    EquivalentPy("inspector.store.gate.x_subject_digest", '.encode("UTF-8")', CODEC),
    EquivalentPy("inspector.store.chain.x_new_salt", "token_hex(",
                 "the contract asks for a fresh random hex salt per event, not for its length"),
    EquivalentPy("inspector.store.audit.x__digest_of_body", "raw.rfind(_BODY_KEY)", QUICK_DIGEST),
    EquivalentPy("inspector.store.audit.x__digest_of_body", "0 < start <= end", QUICK_DIGEST),
    EquivalentPy("inspector.store.audit.xǁ_Walkǁcheck_redactions", "vouch[0] <= seq",
                 "an erase event is never at the seq of a body it vouches for: only intact erase "
                 "events vouch, and a redacted line is not intact"),
    EquivalentPy("inspector.store.actions.x__selected", '"SOURCE": request.source',
                 "DuckDB matches named parameters without regard to case ($source is $SOURCE)"),
    EquivalentPy("inspector.store.coldload.x__read_fast", '"XXnXX": lines',
                 "a missing parameter is a duckdb.Error, on which _take_range reads the range line "
                 "by line: the fast path with a torn tail only costs time"),
    EquivalentPy("inspector.store.load.xǁStoreǁ_take_tail", "tail.end >= self.state.offset",
                 "with no new complete line, staging the empty list of lines adds nothing"),
    EquivalentPy("inspector.store.erasure.x__event", '.decode("UTF-8"', CODEC),
    EquivalentPy("inspector.store.erasure.x__rewritten", "body = None",
                 "the bodies it rewrites are never replaced already: erase_seqs leaves redacted "
                 "seqs out, and the plan is made again under the lock"),
    EquivalentPy("inspector.store.erasure.x__write", "unlink(missing_ok=False)",
                 "the reports it deletes are listed by the plan made again under the lock: each "
                 "one exists when it is deleted"),
    EquivalentPy("inspector.store.gate.x_is_trusted", 'entry.get("source") or "XXXX"',
                 "an entry without a source is untrusted either way (and the contract requires one)"),
]


def equivalent_py(name: str, diff: str) -> EquivalentPy | None:
    return next((e for e in EQUIVALENT_PY if e.matches(name, diff)), None)
