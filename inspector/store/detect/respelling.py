"""Override vocabulary in any spelling: the words of "ignore previous instructions" and their
kin, matched within a small edit distance ("iunstructions", "ignroe", "previus"), for the gate
model's override features (override_class) and the rules' respelling (override_respelling).
"""

from __future__ import annotations

from functools import lru_cache

# Override vocabulary, matched in any spelling within a small edit distance.
_OVERRIDE_WORDS = {
    "ignore": ("ignore", "disregard", "forget", "overlook", "override", "bypass", "neglect"),
    "instr": ("instructions", "instruction", "directions", "guidelines", "directives",
              "rules", "prompt", "commands", "constraints", "restrictions"),
    "prev": ("previous", "prior", "above", "earlier", "preceding", "original", "initial",
             "foregoing"),
}


def _osa(a: str, b: str, limit: int) -> int:
    """Edit distance with transpositions (optimal string alignment), limit+1 when beyond."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if prev2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def override_class(word: str) -> tuple[str, bool] | None:
    """('ignore' | 'instr' | 'prev', misspelt?) for a word close to the override vocabulary."""
    if len(word) < 4 or not word.isalpha():
        return None
    for name, targets in _OVERRIDE_WORDS.items():
        if word in targets or any(word.startswith(t) and len(word) - len(t) <= 2 for t in targets):
            return name, False
    for name, targets in _OVERRIDE_WORDS.items():
        for target in targets:
            if word[0] in target[:2] and _misspelling_of(word, target):
                return name, True
    return None


def _misspelling_of(word: str, target: str) -> bool:
    """Within an edit of a short target word, two of a longer one."""
    limit = 1 if len(target) <= 6 else 2
    # Each edit brings in or takes away one letter: a word with more letters than the limit
    # that the target lacks (or lacking more of the target's) is beyond it. A cheap bound
    # first: most words are refused by it, not by the full distance.
    if len(set(target).difference(word)) > limit or len(set(word).difference(target)) > limit:
        return False
    return _osa(word, target, limit) <= limit


# The words of the override phrase that are respelled (shape.rule_match), and the real words
# within reach of them that are never taken for misspellings. A wider set ("rules",
# "commands", "forget", "original" …) respelled real words ("rule", "comments", "forgot",
# "origin") into phrases the rules took for overrides, in benign texts as often as in attacks.
_RESPELL_TARGETS = ("ignore", "disregard", "instructions", "previous")
_REAL_NEIGHBOURS = frozenset(("instruction", "instructive", "instructing", "instructor",
                              "instructors", "instructed", "preview", "previews", "ignores",
                              "ignored", "ignorer", "ignorant", "disregards", "previously"))


@lru_cache(maxsize=100_000)
def override_respelling(word: str) -> str | None:
    """The override word ("ignore", "disregard", "instructions", "previous") a lower-case word
    is a misspelling of ("ignroe", "iunstructions", "previus"), else None."""
    if len(word) < 5 or not word.isalpha() or word in _REAL_NEIGHBOURS:
        return None
    for target in _RESPELL_TARGETS:
        if word == target:
            return None
        if word[0] == target[0] and _misspelling_of(word, target):
            return target
    return None
