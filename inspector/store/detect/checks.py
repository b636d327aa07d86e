"""The further tests a rule_shape match must pass where a regex is not enough:
is the verb the agent's, is what is sent sensitive, is the phrase used or only
mentioned."""

from __future__ import annotations

import re

from .vocabulary import AGENT_CUE, AGENT_NAME, BULK, RECORD, SENSITIVE, STRONG, VERB

_SENTENCE_END = re.compile(r"[.!?;\n](?:\s|$)")
_STRONG = re.compile(STRONG, re.I)


def _sentence(text: str) -> str:
    end = _SENTENCE_END.search(text)
    return text[:end.start()] if end else text


def _weak_needs_cue(match: re.Match, text: str) -> bool:
    """A weak verb ("send", "use") is the agent's only with an agent-world noun nearby."""
    if _STRONG.fullmatch(match.group("verb")):
        return True
    return bool(AGENT_CUE.search(_sentence(text[match.start("verb"):])))


def _carries_sensitive(match: re.Match, text: str) -> bool:
    """What is sent is a credential, personal data, or bulk documents ("collect the bank
    details … and send them to …" names it before the verb, so the sentence counts)."""
    begun = max(text.rfind(stop, 0, match.start()) for stop in (". ", "; ", "\n"))
    said = text[begun + 1:match.end()]
    return bool(SENSITIVE.search(said) or BULK.search(said))


def _carries_sensitive_in(text: str) -> bool:
    return bool(SENSITIVE.search(text) or BULK.search(text))


def _routes_calls(match: re.Match, text: str) -> bool:
    """'send'/'forward' redirects tools only when what is sent is calls or requests."""
    if match.group("verb").lower() not in ("send", "forward"):
        return True
    return bool(_CALLS.search(match.group(0)))


_CALLS = re.compile(r"\b(?:requests?|calls?|queries|lookups?|traffic)\b", re.I)


def _names_record(match: re.Match, text: str) -> bool:
    return bool(RECORD.search(text))


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
    before = text[:match.start()].rstrip().lower()
    if re.search(r"(?:e\.g\.|i\.e\.|\blike|such as|called|known as|phrase|words|as in|"
                 r"example:?)$", before):
        return False
    return not re.match(r"\W*(?:attacks?|style|jailbreaks?|prompts? (?:are|is)|injections?)\b",
                        text[match.end():], re.I)

