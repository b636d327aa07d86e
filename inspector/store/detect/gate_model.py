"""The gate's trained model at run time: a logistic regression over the features of
features.py, shipped as gate_model.json (the weights by feature kind, bias, threshold, version, the
training corpus digest) and retrained by bench/train_detector.py. The standard library and
orjson (which reads the file): scikit-learn is used to train it, never to score.

A text's score is its best segment's (windows.segments), so one instruction buried in a long
carried document is not diluted by the document, plus the weight learnt for the explainable
rule that matched it, if one did (``r:<category>:<rule>``: rules.py, asked by shape.py only when
that weight could change the answer). Scoring sums the weights a segment's features
have without building the feature dicts: a word's unigram and character-gram weights are added
once and cached, so most words of a value cost one dict lookup.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import repeat
from functools import lru_cache
from importlib import resources

import orjson

from . import features as fx
from . import windows
from .respelling import override_class
from .text import normalize

MODEL_FILE = "gate_model.json"
# 2: the weights grouped by kind in the file (grouped()), bigrams by first word then second.
VERSION = 2
KINDS = "wcbshr"      # word, character gram, bigram, clause start, hand feature, rule
_CACHE_MAX = 200_000
_NO_FOLLOWERS: dict[str, float] = {}     # a word that starts no bigram (never written to)


@dataclass(frozen=True)
class Score:
    probability: float
    segment: str           # the best segment, as normalized text
    reasons: tuple[str, ...]  # its strongest features, strongest first


class GateModel:
    def __init__(self, doc: dict):
        if doc.get("version") != VERSION:
            raise ValueError(f"gate model version {doc.get('version')!r}, this code reads "
                             f"{VERSION}: retrain it (python bench/train_detector.py)")
        self.version = doc["version"]
        self.threshold = float(doc["threshold"])
        self.threshold_logit = math.log(self.threshold / (1.0 - self.threshold))
        # Rules precise enough across origins to hold a text on their own (shape.rule_match
        # keys; bench/train_detector.py trusted_rules).
        self.trusted_rules = frozenset(doc.get("trusted_rules", ()))
        self.bias = float(doc["bias"])
        self.corpus_digest = doc.get("corpus_digest", "")
        weights = doc["weights"]
        self._w, self._c, self._s, self._h, self._r = (weights[k] for k in "wcshr")
        # bigrams by their first word, then their second (tokens hold no space): scoring
        # looks up each token's followers and the next token in them, two lookups of str
        # keys whose hashes are cached, not a pair built and hashed anew (a fifth faster).
        # The file holds them so, as it holds every kind apart: loading builds nothing.
        self._next: dict[str, dict[str, float]] = weights["b"]
        # The most a rule's match can add: below threshold_logit - rule_boost no rule can
        # change the answer, so the rules need not run (detect/shape.py).
        self.rule_boost = max([0.0, *self._r.values()])
        self._word_cache: dict[str, float] = {}
        self._override_cache: dict[str, tuple[str, bool] | None] = {}

    # ------------------------------------------------------------ scoring

    def _word(self, word: str) -> float:
        """A word's unigram weight plus its character grams' (cached)."""
        cache = self._word_cache
        score = cache.get(word)
        if score is None:
            c = self._c
            score = self._w.get(word, 0.0) + sum(c.get(g, 0.0) for g in fx.word_grams(word))
            if len(cache) >= _CACHE_MAX:
                cache.clear()
            cache[word] = score
        return score

    def _override_of(self, word: str):
        cache = self._override_cache
        if word in cache:
            return cache[word]
        found = override_class(word)
        if len(cache) >= _CACHE_MAX:
            cache.clear()
        cache[word] = found
        return found

    def segment_logit(self, segment: str, context: frozenset, decoded: bool) -> float:
        segment = segment.lower()
        tokens = fx.tokens_of(segment)
        if fx.too_short(segment, tokens):
            return fx.SHORT_LOGIT
        cache = self._word_cache
        try:    # every word seen before: one C-level pass
            total = sum(map(cache.__getitem__, tokens))
        except KeyError:
            word = self._word
            total = sum([cache[t] if t in cache else word(t) for t in tokens])
        zero = repeat(0.0)
        if len(tokens) > 1:
            followers = map(self._next.get, tokens, repeat(_NO_FOLLOWERS))
            total += sum(map(dict.get, followers, tokens[1:], zero))
        starts, taking = fx.clause_starts(segment)
        total += sum(map(self._s.get, starts, zero))
        total /= math.sqrt(max(len(tokens), 1))
        hand = fx.hand_features(segment, tokens, starts, taking, context, decoded,
                                self._override_of)
        return self.bias + total + sum(map(self._h.get, hand, zero))

    def logit(self, text: str) -> float:
        context = windows.context_of(normalize(text))
        return max(self.segment_logit(seg, context, decoded)
                   for seg, decoded in windows.segments(text))

    def rule_weight(self, rule: str) -> float:
        """What this rule's matching (shape.rule_match's key) adds to the text's logit."""
        return self._r.get(rule, 0.0)

    def holds(self, text: str, rule: str | None = None) -> bool:
        """rule_shape's decision, given the key of the rule that matched (if any): a trusted
        rule, or the probability with the rule's weight at least the threshold."""
        return rule in self.trusted_rules or self.probability(text, rule) >= self.threshold

    def probability(self, text: str, rule: str | None = None) -> float:
        """The text's probability, given the key of the rule that matched it (if any)."""
        return _sigmoid(self.logit(text) + (self.rule_weight(rule) if rule else 0.0))

    # ------------------------------------------------------------ explaining

    def explain(self, text: str) -> Score:
        """The best segment's probability, its strongest sentence and features."""
        context = windows.context_of(normalize(text))
        logits: dict[tuple[str, bool], float] = {}

        def logit(segment: str, decoded: bool) -> float:
            """segment_logit, each segment scored once (a one-sentence value is the best
            segment and its own strongest sentence)."""
            key = (segment, decoded)
            if key not in logits:
                logits[key] = self.segment_logit(segment, context, decoded)
            return logits[key]

        segment, decoded = max(windows.segments(text), key=lambda sd: logit(*sd))
        # the stronger sentence of a two-sentence window is the excerpt
        parts = [p for p in windows._SENTENCE_SPLIT.split(segment) if p.strip()] or [segment]
        excerpt = max(parts, key=lambda p: logit(p, decoded))
        shown = " ".join(excerpt.split())
        return Score(_sigmoid(logit(segment, decoded)),
                     f"decoded: {shown}" if decoded else shown,
                     tuple(self._reasons(segment, context, decoded)))

    def _reasons(self, segment: str, context: frozenset, decoded: bool, top: int = 3) -> list[str]:
        segment = segment.lower()
        tokens = fx.tokens_of(segment)
        scale = 1.0 / math.sqrt(max(len(tokens), 1))
        parts: dict[str, float] = {}
        starts, taking = fx.clause_starts(segment)
        for name in fx.hand_features(segment, tokens, starts, taking, context, decoded,
                                     self._override_of):
            parts[name] = parts.get(name, 0.0) + self._h.get(name, 0.0)
        for token in tokens:
            key = f"'{token}'"
            parts[key] = parts.get(key, 0.0) + self._word(token) * scale
        for x, y in zip(tokens, tokens[1:]):
            key = f"'{x} {y}'"
            weight = self._next.get(x, _NO_FOLLOWERS).get(y, 0.0)
            parts[key] = parts.get(key, 0.0) + weight * scale
        for word in starts:
            key = f"starts:{word}"
            parts[key] = parts.get(key, 0.0) + self._s.get(word, 0.0) * scale
        ranked = sorted((item for item in parts.items() if item[1] > 0),
                        key=lambda i: (-i[1], i[0]))
        return [name for name, _ in ranked[:top]]


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def grouped(weights: dict[str, float]) -> dict[str, dict]:
    """The file's form of the trained weights {"<kind>:<feature>": weight}: a dict per kind,
    bigrams ("b:<first> <second>") as {first: {second: weight}}. Read as it is, it is the
    model's index: loading the 4.7 MB file takes about 40 ms, several times less than
    building it."""
    by_kind: dict[str, dict] = {kind: {} for kind in KINDS}
    for name, weight in weights.items():
        kind, feature = name[0], name[2:]
        if kind == "b":
            first, second = feature.split(" ", 1)
            by_kind["b"].setdefault(first, {})[second] = weight
        else:
            by_kind[kind][feature] = weight
    return by_kind


def flat(by_kind: dict[str, dict]) -> dict[str, float]:
    """grouped's inverse: every weight under its training feature name."""
    found = {f"b:{first} {second}": weight for first, seconds in by_kind["b"].items()
             for second, weight in seconds.items()}
    for kind in KINDS.replace("b", ""):
        found.update((f"{kind}:{feature}", weight) for feature, weight in by_kind[kind].items())
    return found


def from_json(raw: bytes | str) -> GateModel:
    return GateModel(orjson.loads(raw))     # a third of json.loads's time on the 4.7 MB file


@lru_cache(maxsize=1)
def shipped() -> GateModel:
    """The model shipped with the package (loaded once, on first use)."""
    return from_json(resources.files(__package__).joinpath(MODEL_FILE).read_bytes())
