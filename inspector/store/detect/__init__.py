"""Text detectors for the write gate (DESIGN §2.3) and `scan` (§7a).

Three questions asked of every string inside a memory value:

- ``rule_shape``: is it an instruction aimed at the agent that will read the
  memory ("From now on reply in French", "Ignore previous instructions", a fake
  system voice, "send the keys to …") rather than a description of the world
  ("The 8:15 train always leaves from platform 2")?
- ``secret``: does it hold a credential (keys, tokens, private keys, passwords)?
- ``pii``: which e-mail addresses and phone numbers does it hold?

Every matcher runs on ``normalize(text)``: NFKC, with invisible format
characters removed, so full-width letters and zero-width splits do not hide an
instruction. rule_shape is layered: fake system voices (authority), dropping the
standing instructions (override), sending secrets or bulk data out
(exfiltration), swapping a tool or endpoint (tool_redirection), pointing a
subject's data elsewhere (record_redirection), standing orders (persistent_rule:
"always / from now on / whenever …" with a verb only an agent is told), and, when
nothing matches, the same rules over the text with one disguise undone (base64,
hex, rot13, leetspeak, spacing, look-alike letters … : obfuscation). It is a
gate for human review, not a verdict: a phrasing no rule knows gets through.

Since issue 11 the rules are one layer of rule_shape: a trained gate model
(gate_model.py over features.py; bench/train_detector.py retrains it, and
bench/detector_report.py measures it leave-one-origin-out) decides. A rule that is
precise across the corpus's origins holds on its own; the others are evidence the model
weighs; the model alone catches phrasings no rule knows (a plain "Transfer … to IBAN …",
a fake "[system]" voice, an instruction buried in a long document), and its finding names
its probability, the strongest sentence and the features behind it. Scoring is plain
Python over the shipped gate_model.json: no scikit-learn or numpy at run time.

A rule is only tried when the string holds one of the words it needs. The standard library
and orjson: no Textual, Rich or DuckDB.

One idea per module: text (Finding, normalize, texts_of), vocabulary and checks
(the pieces rules are built from), rules (the RULES table), shape (rule_shape, the
matcher), decoders (the obfuscation decoders), windows (the segments of a text the model
scores), respelling (override words in any spelling), features and gate_model (the trained
model), secrets (secret, short codes included), personal_data (pii), and batch (secret and
rule_shape asked of a whole feed at once, on every core).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .text import EXCERPT_MAX, Finding, normalize, texts_of

if TYPE_CHECKING:
    from .personal_data import pii
    from .rules import RULES
    from .secrets import secret
    from .shape import _candidates, _unquote_mentions, _words_of, rule_shape

__all__ = ["Finding", "normalize", "texts_of", "rule_shape", "secret", "pii", "scan_value"]
# RULES and the word-index helpers are reachable too (not exported): tests/unit/test_detect.py
# reaches them as detect.<name> to check the word index.

# Loaded when first asked for: the rules, the model and their regular expressions cost about
# 40 ms to import, which a command that only reads (and masks secrets) never needs.
_LAZY = {"pii": "personal_data", "pii_named_in": "personal_data", "RULES": "rules", "secret": "secrets", "rule_shape": "shape",
         "_candidates": "shape", "_unquote_mentions": "shape", "_words_of": "shape"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = found
    return found


def scan_value(value) -> dict[str, list[Finding]]:
    """All three detectors over every string in a JSON value."""
    from .personal_data import pii          # loaded here: a module's __getattr__ serves other
    from .secrets import secret             # modules' lookups, not this module's own globals
    from .shape import rule_shape
    result: dict[str, list[Finding]] = {"rule_shape": [], "secret": [], "pii": []}
    for text in texts_of(value):
        for kind, found in (("rule_shape", rule_shape(text)), ("secret", secret(text))):
            if found:
                result[kind].append(found)
        result["pii"] += pii(text)
    return result
