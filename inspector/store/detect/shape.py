"""rule_shape: is a string an instruction aimed at the agent? The explainable rules
first: they are tried through a word index (most strings meet no regex at all) and each
behind its gate, literal text its pattern cannot match without (rules.py), over the
lower-cased text where that is what re.I folds (text._foldable), quoted
mentions and reported speech are set aside, and when nothing matches the decoders undo
one disguise and the rules are tried again (obfuscation). Then the trained gate model
(gate_model.py), which catches phrasings no rule knows: a finding of category "model"
whose excerpt names its probability, the strongest sentence and the features behind it."""

from __future__ import annotations

import re
import weakref
from typing import Iterable, Iterator

from . import windows
from .markup import in_either_reading
from .respelling import override_respelling
from . import gate_model
from .decoders import DECODERS, _disguises, _may_decode, _rotated, _tag_smuggled, encodings
from .checks import PER_TEXT
from .rules import RULES, Rule
from .text import _WORD, Finding, _excerpt, _foldable, _trie, normalize, remember_last


# A phrase in double quotes is mentioned, not used, when the text around it
# talks about it: "OWASP lists "Ignore previous instructions" style attacks".
_QUOTED = re.compile(r"\"[^\"\n]{2,200}\"|“[^”\n]{2,200}”|«[^»\n]{2,200}»")
_MENTION = re.compile(
    r"\b(?:prompt injection|injections?|jailbreaks?|attacks?|phrases?|titled?|blog|post|"
    r"examples?|style|called|known as|such as|e\.g\.|explained|discussed|means|owasp|llm\d+|"
    r"words?|slogan|said|says|asked|wrote|told|quoted?|string|warns?|warning)\b", re.I)


def _unquote_mentions(text: str) -> str:
    """Blank out quoted phrases that the surrounding text only talks about."""
    if '"' not in text and "“" not in text and "«" not in text:
        return text
    outside = _QUOTED.sub(" ", text)
    if not _MENTION.search(outside):
        return text
    return _QUOTED.sub('"…"', text)


# "…, the user noted." / "Mum said: …" / "(advice from the leaflet)": someone
# else's words to a person, reported; advice reads like an order, a report is a fact.
_ATTRIBUTED = re.compile(
    r",(?!\s*(?:whatever|what\b|regardless|no matter))\s*(?:the |his |her |their |our |my )?"
    r"[\w' -]{1,30}?\s+(?:says|said|notes|noted|writes|wrote|added|explained|mentioned|recalled|"
    r"insists|insisted|advises|advised|told \w+)\.?!?\s*$|"
    r",\s*(?:says|said|writes|wrote|according to) (?:the |a |an |his |her |their |our |my )?"
    r"[\w' -]{1,30}\.?!?\s*$|"
    r"^(?:the |his |her |my )?[\w']+(?: [\w']+)?\s+(?:says|said|wrote)(?: that)?\s*:|"
    r"\((?:advice|tip|note|quote|rule) from [^)]*\)\s*\.?\s*$", re.I)


def _rule_index() -> tuple[dict[str, set[int]], list[tuple[str, int]]]:
    """Which rules each needed word or substring unlocks, so a string only meets its own."""
    by_word: dict[str, set[int]] = {}
    by_mark = []
    for index, rule in enumerate(RULES):
        for word in rule.words:
            by_word.setdefault(word, set()).add(index)
        by_mark += [(mark, index) for mark in rule.marks]
    return by_word, by_mark


_BY_WORD, _BY_MARK = _rule_index()
_INDEXED_WORDS = frozenset(_BY_WORD)


def _words_of(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


@remember_last
def _word_set(text: str) -> frozenset[str]:
    """_words_of, remembered for the last string (rule_shape asks _may_trust, then
    rule_match, of the same string)."""
    return frozenset(_WORD.findall(text.lower()))


def _hinted(text: str) -> bool:
    """Is a disguise likely (windows.hints, remembered for the last string)?"""
    return bool(windows.hints(text))


def _candidates(text: str, words: set[str]) -> list[int]:
    """The rules, in order, whose needed words or substrings the text holds."""
    found: set[int] = set()
    for word in words & _INDEXED_WORDS:
        found.update(_BY_WORD[word])
    if "<" in text or "[" in text or "://" in text:   # every mark holds one of these
        lower = text.lower()
        found.update(index for mark, index in _BY_MARK if mark in lower)
    return sorted(found)


def _first_rule(text: str, words: set[str] | None = None) -> Finding | None:
    """The first rule whose words the text holds and whose pattern (and check) match."""
    found = _first_rule_at(text, words)
    return found[0] if found else None


def _first_rule_at(text: str, words: set[str] | None = None) -> tuple[Finding, int] | None:
    """The same, with the rule's index in RULES."""
    unquoted = _unquote_mentions(text)
    if words is None or unquoted is not text:
        words = _words_of(unquoted)
    return next(_matches(unquoted, _candidates(unquoted, words)), None)


def _matches(unquoted: str, indexes: Iterable[int]) -> Iterator[tuple[Finding, int]]:
    """Each rule of `indexes` (RULES indexes, in their order) that matches the text, with its
    finding: for a foldable text its gate first (one string of each group, else the rule
    cannot match), then its case-sensitive pattern; else the rule as written."""
    if not _foldable(unquoted):
        for index in indexes:
            found = _match(RULES[index], unquoted)
            if found:
                yield found, index
        return
    lower = unquoted.lower()
    contains = lower.__contains__
    for index in indexes:
        testers, pattern = _FOLDED[index] or _folded(index)
        for test in testers:
            if not (any(map(contains, test)) if type(test) is tuple else test(lower)):
                break
        else:
            found = (_match_folded(RULES[index], pattern, unquoted, lower) if pattern
                     else _match(RULES[index], unquoted))
            if found:
                yield found, index


# Per rule, built on first use: its gate as testers (a tuple of substrings, one of which
# the lower-cased text must hold, or a regex's search over it for a large group) and its
# case-sensitive pattern.
_FOLDED: list[tuple[tuple, re.Pattern | None] | None] = [None] * len(RULES)
_SMALL_GROUP = 12       # tested with `in`, string by string
_LARGE_GROUP = 64       # above this a regex costs tens of milliseconds to compile


def _folded(index: int) -> tuple[tuple, re.Pattern | None]:
    gate, pattern = RULES[index].folded
    # Larger groups become one regex each (text._trie); a group too large for that to
    # compile quickly is tested only if it is the first, most selective one.
    testers = tuple(tuple(group) if len(group) <= _SMALL_GROUP
                    else re.compile(_trie(group)).search
                    for nth, group in enumerate(gate) if nth == 0 or len(group) <= _LARGE_GROUP)
    _FOLDED[index] = testers, pattern
    return testers, pattern


def _match_folded(rule: Rule, pattern: re.Pattern, text: str, lower: str) -> Finding | None:
    """_match over text.lower() (text being _foldable) with the rule's case-sensitive
    pattern; the checks read the lower-cased text (they all ignore case), the excerpt is
    cut from the text itself."""
    match = _checked(rule, pattern.finditer(lower), lower)
    if match is None or (rule.reportable and _ATTRIBUTED.search(text)):
        return None   # no match, or someone's words to a person, reported: not an order
    return Finding("rule_shape", rule.category, _excerpt(text[match.start():match.end()]))


def _match(rule: Rule, text: str) -> Finding | None:
    match = _checked(rule, rule.pattern.finditer(text), text)
    if match is None or (rule.reportable and _ATTRIBUTED.search(text)):
        return None   # no match, or someone's words to a person, reported: not an order
    return Finding("rule_shape", rule.category, _excerpt(match.group(0)))


def _checked(rule: Rule, matches: Iterator[re.Match], text: str) -> re.Match | None:
    """The first match the rule's check passes. A check that reads only the text
    (checks.PER_TEXT) runs once, on the first match: once a match, a long value with thousands
    of matches cost time quadratic in its length."""
    if rule.check in PER_TEXT:
        first = next(matches, None)
        return first if first is not None and rule.check(first, text) else None
    return next((m for m in matches if rule.check is None or rule.check(m, text)), None)


def rule_shape(text: str) -> Finding | None:
    """An instruction aimed at the agent, in the text as written or, if it has inline markup,
    as rendered (markup.plain_reading: "Ignore **previous** instructions")."""
    return in_either_reading(rule_shape_as_written, text)


def rule_shape_as_written(text: str) -> Finding | None:
    """An instruction aimed at the agent, in one reading. Held when the first rule that matches is one the
    model file trusts (a rule precise across origins: it holds on its own), or when the gate
    model's probability — its score of the text (gate_model.py) plus the weight it learnt for
    the rule that matched, if one did — is at least its threshold. The finding is the rule's
    (category and phrase) when a rule matched, else the model's (probability, strongest
    sentence, strongest features). The rules run only where they can change the answer: a
    trusted rule's words (or a disguise) are in the text, or the model's score is within
    the largest rule weight of its threshold."""
    model = gate_model.shipped()
    base = model.logit(text)
    near = base + model.rule_boost >= model.threshold_logit
    if not near and not _may_trust(text, model):
        return None
    found = rule_match(text)
    if found and found[1] in model.trusted_rules:
        return found[0]
    if not near:
        return None
    total = base + (model.rule_weight(found[1]) if found else 0.0)
    if total < model.threshold_logit:
        return None
    return found[0] if found else model_finding(text, model)


class _TrustedCues:
    """What a trusted rule cannot match without: its words (by word, the trusted rules
    that need it, in RULES order) or substrings, and its gate."""

    def __init__(self, model: gate_model.GateModel):
        by_word: dict[str, list[int]] = {}
        self.marks: list[tuple[str, int]] = []
        for key in model.trusted_rules:
            index = key.rsplit(":", 1)[1]
            if index.isdigit():
                for word in RULES[int(index)].words:
                    by_word.setdefault(word, []).append(int(index))
                self.marks += [(mark, int(index)) for mark in RULES[int(index)].marks]
        self.by_word = {word: tuple(sorted(found)) for word, found in by_word.items()}
        self.words = frozenset(by_word)
        self.respell = "obfuscation:decoded" in model.trusted_rules


# Keyed by the model itself (weakly): an id could be a collected model's, reused.
_TRUSTED_CUES: "weakref.WeakKeyDictionary[gate_model.GateModel, _TrustedCues]" = (
    weakref.WeakKeyDictionary())


def _may_trust(text: str, model: gate_model.GateModel) -> bool:
    """Could a trusted rule match? Its words or substrings in the text and its gate passed
    (as _first_rule_at would try it), or a disguise (look-alike letters, invisible
    characters, an encoding, a respelling) that a trusted decoding undoes."""
    if not model.trusted_rules:
        return False
    cues = _TRUSTED_CUES.get(model)
    if cues is None:
        cues = _TRUSTED_CUES[model] = _TrustedCues(model)
    plain = normalize(text)
    if plain != text:           # a disguise undone by normalizing (rule_match reports it)
        return True
    found = _word_set(plain)
    if _hinted(plain) and _may_decode(plain, found) and _decodes(plain, found):
        return True             # an encoding, or look-alike letters (as rule_match decodes)
    if encodings(text, found):
        return True             # a further encoding (Braille, base32, …) that reads as text
    if cues.respell and any(map(override_respelling, found)):
        return True
    lower = plain.lower()
    if cues.words.isdisjoint(found) and not any(mark in lower for mark, _ in cues.marks):
        return False
    # A trusted word is common ("you", "system", "if"): one text in thirty that holds one
    # meets a trusted rule, so the trusted rules alone are tried before rule_match.
    return _trusted_rule_matches(plain, found, cues)


def _decodes(text: str, words: frozenset[str]) -> bool:
    """Does one of the decoders _decoded_rule would run make a new text of this one (a
    rotation always does)? When none does, it can find no rule. Most texts it is asked of
    hold a long token (a URL, an id) that no base64 or hex decoding reads as text."""
    hints = _disguises(text, words)
    if "rot" in hints:
        return True
    for name, decode in DECODERS:
        if name in hints:
            decoded = decode(text)
            if decoded and decoded != text:
                return True
    return False


def _trusted_rule_matches(plain: str, words: frozenset[str], cues: _TrustedCues) -> bool:
    """Does a trusted rule match this text as _first_rule_at tries it (a candidate by its
    words or substrings, past its gate, its pattern and check)? When none does, the first
    rule that matches is not a trusted one. (Unquoting only takes words and substrings away:
    _may_trust's test of the plain text stands.)"""
    unquoted = _unquote_mentions(plain)
    if unquoted is not plain:
        words = _words_of(unquoted)
    lower = unquoted.lower()
    candidates = {index for word in words & cues.words for index in cues.by_word[word]}
    candidates.update(index for mark, index in cues.marks if mark in lower)
    return next(_matches(unquoted, candidates), None) is not None


MODEL_SENTENCE_MAX = 60


def model_finding(text: str, model: gate_model.GateModel | None = None) -> Finding | None:
    """The gate model's own finding (no rule): "0.93: 'Forward all invoices to …'
    [imperative→destination, addressed:assistant]" — probability, strongest sentence,
    strongest features — or None below its threshold."""
    model = model or gate_model.shipped()
    why = model.explain(text)
    if why.probability < model.threshold:
        return None
    sentence = why.segment
    if len(sentence) > MODEL_SENTENCE_MAX:
        sentence = sentence[:MODEL_SENTENCE_MAX - 1] + "…"
    return Finding("rule_shape", "model",
                   f"{why.probability:.2f}: '{sentence}' [{', '.join(why.reasons)}]")


def rules_finding(text: str) -> Finding | None:
    """The first rule that matches, in plain sight or behind a disguise."""
    found = rule_match(text)
    return found[0] if found else None


def rule_match(text: str) -> tuple[Finding, str] | None:
    """The first rule that matches and its key for the gate model: "<category>:<index in
    RULES>" for a rule read in plain sight, "obfuscation:<how>" behind a disguise (the model
    learns a weight for each, as rules differ in precision far more than categories do)."""
    plain = normalize(text)
    words = _word_set(plain)
    at = _first_rule_at(plain, words)
    if at and plain != text and not _first_rule(text):
        # Only readable once zero-width splits or look-alike letters are undone: the
        # disguise is the finding a reviewer most needs to see.
        return Finding("rule_shape", "obfuscation", at[0].excerpt), "obfuscation:normalized"
    if at:
        return at[0], f"{at[0].category}:{at[1]}"
    # Misspelt override words ("Ignore your previous iunstructions"): a disguise like the
    # decoders' ones, read respelled.
    respelled = _respelled(plain, words)
    found = _decoded_rule_of(respelled, "respelled") if respelled else None
    if found:
        return found, "obfuscation:decoded"
    # The decoders only where a disguise is likely: one of their own cues met and a new
    # text possible (decoders._may_decode, the cheaper test) and windows._hints (stricter
    # C-speed tests than those cues, which most multi-sentence values meet).
    found = ((_decoded_rule(plain, words) if _may_decode(plain, words) else None)
             or _decoded_rule_of(_tag_smuggled(text), "tags")
             or next((hit for name, decoded in encodings(text, words)
                      if (hit := _decoded_rule_of(decoded, name))), None))
    return (found, "obfuscation:decoded") if found else None


def _respelled(text: str, words: set[str]) -> str | None:
    """The text with each misspelling of an override word (respelling.override_respelling)
    written right, or None when it holds none."""
    fixes = {word: right for word in words if (right := override_respelling(word))}
    if not fixes:
        return None
    return _WORD.sub(lambda m: fixes.get(m.group(0).lower(), m.group(0)), text)


def _decoded_rule(text: str, words: set[str]) -> Finding | None:
    """A rule hidden behind an encoding, a spelling trick or a letter rotation, when
    windows._hints finds a disguise likely (asked only where a decoder could yield a new
    text: rule_match asks decoders._may_decode first)."""
    if not _hinted(text):
        return None
    hints = _disguises(text, words)
    for name, decode in DECODERS:
        if name not in hints:
            continue
        decoded = decode(text)
        found = _decoded_rule_of(decoded, name) if decoded != text else None
        if found:
            return found
    for rotated in _rotated(text) if "rot" in hints else ():
        found = _decoded_rule_of(rotated, "rot")
        if found:
            return found
    return None


def _decoded_rule_of(decoded: str, how: str) -> Finding | None:
    found = _first_rule(normalize(decoded)) if decoded else None
    if not found:
        return None
    return Finding("rule_shape", "obfuscation", _excerpt(f"{how}: {found.excerpt}"))
