"""The deliberate bugs of issue 15, each as a text patch, with the tests that must catch it.

Each runs against its test files without stopping at the first failure, so the report can say
which tests catch it. A patch whose text is no longer in the file (the code moved) is reported
as such, never silently skipped.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Named:
    name: str
    patches: tuple[tuple[str, str, str], ...]     # (file, old text, new text), each once
    tests: tuple[str, ...]


def patch(file: str, old: str, new: str) -> tuple[tuple[str, str, str]]:
    return ((file, old, new),)


RECOVERY_KEEPS_TEMPS = ("inspector/store/recovery.py",
                        "                remove_tree(paths.root / entry.name)\n                found += 1",
                        "                found += 1")


BELIEF_TESTS = ("tests/unit/test_belief_order.py", "tests/unit/test_beliefs_differential.py")

NAMED = [
    Named("the belief rule orders by scope depth before authority (beliefs_in, macros.sql)",
          patch("queries/macros.sql",
                "ORDER BY eff_authority DESC, depth DESC, observed_at DESC, memory_id DESC)",
                "ORDER BY depth DESC, eff_authority DESC, observed_at DESC, memory_id DESC)"),
          BELIEF_TESTS),
    Named("the same swap in rivals (beliefs.sql)",
          patch("queries/beliefs.sql",
                "    ORDER BY eff_authority DESC, depth DESC, observed_at DESC, memory_id DESC\n    LIMIT 1",
                "    ORDER BY depth DESC, eff_authority DESC, observed_at DESC, memory_id DESC\n    LIMIT 1"),
          BELIEF_TESTS),
    Named("erasure keeps stale .events.jsonl.tmp-* files after a crash (recovery)",
          (RECOVERY_KEEPS_TEMPS,),
          ("tests/crash/test_crash.py::test_a_crashed_erasure_leaves_the_old_log_or_the_new_one",)),
    # replace_file removes its temp file on an error, and the failed erasure settles the way
    # recovery does (which removes temp files too): only with both off does one stay.
    Named("erasure keeps its temp file when the rewrite fails (replace_file and recovery)",
          (("inspector/store/files.py",
            "            os.close(fd)\n            _unlink(temp, dir_fd)\n            raise",
            "            os.close(fd)\n            raise"), RECOVERY_KEEPS_TEMPS),
          ("tests/crash/test_crash.py::test_a_failed_erasure_leaves_no_temp_file",)),
    Named("the sanitizer stops escaping U+2060-U+2064 and U+FEFF",
          patch("inspector/present/text.py", r"\u2060-\u2064\u2066-\u2069\ufeff", r"\u2066-\u2069"),
          ("tests/unit/test_text.py",)),
    Named("the sanitizer stops escaping U+00AD",
          patch("inspector/present/text.py", r"\x7f-\x9f\xad", r"\x7f-\x9f"),
          ("tests/unit/test_text.py",)),
    Named("the gate matches a user:X scope by substring instead of by segment",
          patch("inspector/store/gate.py",
                'return kind == "user" and who in segments(entry.get("scope") or "")',
                'return kind == "user" and who in (entry.get("scope") or "")'),
          ("tests/unit/test_gate.py",)),
    Named("the TUI drops the typed reason (the placeholder reaches log and certificate)",
          patch("inspector/tui/session.py",
                "plan.action.apply(store, replace(plan, request=replace(plan.request, reason=reason)))",
                "plan.action.apply(store, plan)"),
          ("tests/tui/test_action_keys.py",)),
]
