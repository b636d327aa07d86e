"""The further tests a rule_shape match must pass where a regex is not enough:
is the verb the agent's, is what is sent sensitive, is the phrase used or only
mentioned."""

from __future__ import annotations

import re

from .vocabulary import AGENT_CUE, AGENT_NAME, BULK, RECORD, SENSITIVE, STRONG, VERB

_SENTENCE_END = re.compile(r"[.!?;\n](?:\s|$)")
_STRONG = re.compile(STRONG, re.I)


# Every check reads the text at the match, never from its start or to its end on each call: a
# long value with thousands of matches of a rule's pattern must cost time linear in its length
# (an 80 KB value once took 15 s to ingest).

def _weak_needs_cue(match: re.Match, text: str) -> bool:
    """A weak verb ("send", "use") is the agent's only with an agent-world noun nearby."""
    if _STRONG.fullmatch(match.group("verb")):
        return True
    start = match.start("verb")
    end = _SENTENCE_END.search(text, start)
    return bool(AGENT_CUE.search(text[start:end.start() if end else len(text)]))


# How far back a sentence is read for what a verb sends: without a bound, a long value with
# no full stop and thousands of "send … to …" took time quadratic in its length (80 KB: 22 s).
SENTENCE_REACH = 1000


def _carries_sensitive(match: re.Match, text: str) -> bool:
    """What is sent is a credential, personal data, or bulk documents ("collect the bank
    details … and send them to …" names it before the verb, so the sentence counts)."""
    reach = max(0, match.start() - SENTENCE_REACH)
    begun = max(text.rfind(stop, reach, match.start()) for stop in (". ", "; ", "\n"))
    said = text[max(begun + 1, reach):match.end()]
    return bool(SENSITIVE.search(said) or BULK.search(said))


def _carries_sensitive_in(match: re.Match, text: str) -> bool:
    """Anywhere in the text (a passive "… should be forwarded to …" names it anywhere)."""
    return bool(SENSITIVE.search(text) or BULK.search(text))


def _routes_calls(match: re.Match, text: str) -> bool:
    """'send'/'forward' redirects tools only when what is sent is calls or requests."""
    if match.group("verb").lower() not in ("send", "forward"):
        return True
    return bool(_CALLS.search(match.group(0)))


_CALLS = re.compile(r"\b(?:requests?|calls?|queries|lookups?|traffic)\b", re.I)


def _names_record(match: re.Match, text: str) -> bool:
    return bool(RECORD.search(text))


# Checks that read the text, not the match: run once a text (shape._checked), not once a match.
PER_TEXT = frozenset({_names_record, _carries_sensitive_in})


def _agent_verb(match: re.Match, text: str) -> bool:
    """'The assistant must …' is a rule; 'you will love it' is not. "You", "the agent"
    and "the model" also name people and products, so for them the modal must bind
    ("must", "is required to") or the verb must be one only an assistant is told."""
    said = match.group(0)
    if re.match(rf"(?:the |this )?{AGENT_NAME}\b", said, re.I):
        return True
    verb = match.group("verb")
    if re.search(r"\b(?:will|should|may|can)\b(?! now)", said, re.I):
        return bool(_STRONG.fullmatch(verb))
    return bool(re.fullmatch(rf"{VERB}|follow|grant|bypass|skip|disable|enable|mark|treat|"
                             r"transfer|approve|reset|switch|turn|comply|obey|now", verb, re.I))


def _used_not_mentioned(match: re.Match, text: str) -> bool:
    """'… e.g. ignore all previous instructions attacks' names the phrase, it does not say it."""
    end = match.start()
    while end and text[end - 1].isspace():
        end -= 1
    before = text[max(0, end - 64):end].lower()     # the words just before, as rstrip() leaves them
    if re.search(r"(?:e\.g\.|i\.e\.|\blike|such as|called|known as|phrase|words|as in|"
                 r"example:?)$", before):
        return False
    return not _NAMED_AFTER.match(text, match.end())


_NAMED_AFTER = re.compile(r"\W*(?:attacks?|style|jailbreaks?|prompts? (?:are|is)|injections?)\b",
                          re.I)

