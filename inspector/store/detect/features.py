"""What the gate model sees in a text: the same features for training (bench/train_detector.py,
as explicit name -> value dicts) and for scoring (model.py, which sums the shipped weights of
the same names without building the dicts).

A text is scored by its *segments* (windows.py: the whole of a short value, windows of two
sentences of a long one, decoded forms of a disguised one): its score is the best segment's.

Features of a segment (all names are plain strings; no Python hash(), which is randomized):

- ``w:<word>`` word unigrams, ``b:<word> <word>`` bigrams, ``c:<gram>`` character 3- and
  4-grams of each word (so "iunstructions" shares most of "instructions"), ``s:<word>`` the
  first word of each sentence or clause — all counts scaled by 1/sqrt(tokens); digits read
  as 0 so "file 4523" and "file 9981" are the same words;
- ``h:<name>`` hand-made features that generalize past any one corpus: a sentence opening
  with an action verb (imperative mood), and that verb taking an object ("Delete the file …",
  not "Transfer of €1,250 completed"), as the whole of a short value (a bare imperative) or
  toward a destination; the reader addressed ("you", "assistant", "AI"),
  role markers (SYSTEM:, [system], ###, <|…|>, fake Assistant:/User: turns), an action verb
  aimed at a destination or an identifier (e-mail address, URL, IBAN, file id, account),
  override vocabulary in any spelling (edit distance ≤ 2 from ignore / instructions /
  previous …), an imperative inside a long carried document, a decoded payload.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from .respelling import override_class
from .text import normalize
from .vocabulary import ACTION_VERBS
from .windows import context_of, segments

MAX_GRAM_WORD = 24    # longer tokens (hashes, base64) get no character n-grams

TOKEN = re.compile(r"\w+|[^\w\s]+")

# The first word of a sentence or clause (after softeners and list bullets): a run of letters
# in any script.
# A clause starts at a sentence or line break, a bracket or dash, or a comma (", say it was
# planned maintenance"); softeners and the words that make an order standing ("always",
# "never", "from now on", "going forward") are skipped, so "Always cc …" starts with "cc".
# Then what follows the word, for clause_starts to tell a verb's object from a noun's
# follower: an address or handle, a word (group 3), a sum or a quotation mark. An ASCII
# segment (most of them) is read by the same pattern with ASCII letters, which finds the same
# there and runs faster.
_CLAUSE_PATTERN = (
    r"(?:^|[.!?;:,\n>\]\)}|*#=•]|(?<!\w)[-–—])\s*"
    r"(?:(?:please|kindly|now|also|then|and|just|immediately|first|next|finally|simply|"
    r"actually|instead|so|ok|okay|always|never|from now on|going forward|henceforth|"
    r"from today|in future|in the future|moving forward)[,:]?\s+)*(WORD)"
    r"(?=\s*([\w.+-]+@[\w-]+\.\w|https?://|www\.|[@#]\w|(WORD)|[$€£¥\"“'‘])|)")
_CLAUSE_START = re.compile(_CLAUSE_PATTERN.replace("WORD", r"[^\W\d_]+"), re.M)
_ASCII_CLAUSE_START = re.compile(_CLAUSE_PATTERN.replace("WORD", "[a-z]+"), re.M)


_YOU = frozenset(("you", "your", "yours", "yourself", "u"))
_AGENT = frozenset(("assistant", "ai", "model", "agent", "chatbot", "bot", "llm", "gpt",
                    "chatgpt", "claude", "gemini", "copilot", "assistants", "agents", "models"))
_FIRST_PERSON = frozenset(("i", "we", "my", "our", "me", "us"))
_PERSIST = frozenset(("always", "never", "whenever", "henceforth", "forward", "future"))
_ABOUT_INJECTION = frozenset(("injection", "injections", "jailbreak", "jailbreaks",
                              "attacker", "attackers", "adversarial", "malicious", "phishing"))

# Structural markers. Each is tried only when the segment holds a substring or word it
# cannot match without (a C-speed test), so most segments meet few regexes.
_ROLE_WORDS = frozenset("""system sys admin administrator developer dev root operator instruction
instructions important attention warning urgent priority override core system_message
assistant""".split())
_TURN_AGENT_WORDS = frozenset(("assistant", "ai", "bot", "model", "gpt", "chatbot"))
_TURN_USER_WORDS = frozenset(("user", "human", "customer"))
_ID_WORDS = frozenset("""file document doc id ticket account acct user invoice order wallet iban
channel repo repository""".split())
_TLDS = frozenset("com net org io xyz ru info biz".split())
_SAY_WORDS = frozenset(("say", "reply", "respond", "answer", "state", "report", "claim", "tell"))
_NOT_WORDS = frozenset(("not", "don", "dont", "never", "without"))
_SEND_WORDS = frozenset("""send forward transfer wire email mail share upload post invite add move
copy pay give grant leak submit deliver export""".split())
_PERSIST_PHRASE_WORDS = frozenset(("now", "forward", "point", "future", "time", "times"))

# Each word of the sets above, with the names of the sets that hold it: a segment's words meet
# the table once (_kinds_of), not each set in turn (a dozen isdisjoint calls, each a lookup
# a word of the segment, were a tenth of scoring a value).
_WORD_SETS = {"you": _YOU, "agent": _AGENT, "first_person": _FIRST_PERSON, "persist": _PERSIST,
              "about_injection": _ABOUT_INJECTION, "role": _ROLE_WORDS,
              "turn_agent": _TURN_AGENT_WORDS, "turn_user": _TURN_USER_WORDS, "id": _ID_WORDS,
              "tld": _TLDS, "say": _SAY_WORDS, "not": _NOT_WORDS, "send": _SEND_WORDS,
              "persist_phrase": _PERSIST_PHRASE_WORDS}
_KINDS = {word: frozenset(kind for kind, words in _WORD_SETS.items() if word in words)
          for word in frozenset().union(*_WORD_SETS.values())}
_KIND_WORDS = frozenset(_KINDS)


def _kinds_of(words: set[str]) -> frozenset[str]:
    """The names of the word sets (_WORD_SETS) that share a word with these words."""
    hits = words & _KIND_WORDS
    if not hits:
        return frozenset()
    return frozenset().union(*map(_KINDS.__getitem__, hits))

_CHAT_TOKEN = re.compile(r"<\|[^|>\n]{1,30}\|>|\[/?inst\]|<</?sys>>|<(?:start|end)_of_turn>|</?s>|"
                         r"</?(?:system|assistant|user|instructions?)>")
_ROLE_HEADER = re.compile(
    r"(?:^|\n)[ \t\[\(<#*=\-_|>]*(?:system|sys|admin|administrator|developer|dev|root|operator|"
    r"instructions?|important|attention|warning|urgent|priority|override|core instruction|"
    r"system[ _]message|new instructions?|admin request)\b[^\n:\]\)>]{0,24}[:\]\)>](?=\s|$)")
_BRACKET_ROLE = re.compile(r"[\[\(<{]\s*(?:system|admin|developer|instruction|important|sys|root|"
                           r"operator|assistant)")
_TURN_AGENT = re.compile(r"\b(?:assistant|ai|bot|model|gpt|chatbot)\s*:(?=\s|$)")
_TURN_USER = re.compile(r"\b(?:user|human|customer)\s*:(?=\s|$)")
_URL = re.compile(r"\b[a-z0-9-]+\.(?:com|net|org|io|xyz|ru|info|biz)\b")
# An IBAN written in groups of four, or any after the word "iban" (a hex digest is not one).
_IBAN = re.compile(r"\b[a-z]{2}\d{2}(?: [a-z0-9]{4}){3,7}\b|"
                   r"\biban\W{0,3}[a-z]{2}\d{2}[a-z0-9 ]{11,40}")
_IDENTIFIER = re.compile(
    r"\b(?:file|document|doc|id|ticket|account|acct|user|invoice|order|wallet|iban|channel|repo|"
    r"repository)\s*(?:id|#|no\.?|number)?\s*[:#]?\s*['\"]?[a-z0-9_-]*\d")
_LONG_NUMBER = re.compile(r"\d{6,}")
_MODAL_YOU = re.compile(r"\byou (?:must|should|shall|will|need to|have to|are to|are required to|"
                        r"may now|can now|are now|are allowed to)\b")
_SAY_THAT = re.compile(r"\b(?:say|reply|respond|answer|state|report|claim|tell (?:the user|them|"
                       r"him|her|everyone))\b[^.!?\n]{0,24}?\b(?:that|with)\b")
_DO_NOT_TELL = re.compile(r"\b(?:do not|don'?t|never|without) (?:tell|mention|inform|reveal|let|"
                          r"notify|asking|alerting)\b")
_VERB_TO = re.compile(r"\b(?:send|forward|transfer|wire|email|mail|share|upload|post|invite|add|"
                      r"move|copy|pay|give|grant|leak|submit|deliver|export)\b[^.!?\n]{0,80}?"
                      r"\b(?:to|into|at|with)\b")
_PERSIST_PHRASE = re.compile(r"\b(?:from now on|going forward|from this point|in all future|"
                             r"every time|each time|at all times|for all future)\b")
_DIGIT = re.compile(r"\d")


def _markers(segment: str, words: set[str], kinds: frozenset[str]) -> set[str]:
    """The structural markers a (lower-cased) segment holds (kinds: _kinds_of(words))."""
    found = set()
    roles = "role" in kinds
    if ("<" in segment or "[" in segment) and _CHAT_TOKEN.search(segment):
        found.add("chat_token")
    if roles:
        if _ROLE_HEADER.search(segment):
            found.add("role_header")
        if _BRACKET_ROLE.search(segment):
            found.add("bracket_role")
    if "###" in segment or "====" in segment or "----" in segment or "***" in segment:
        found.add("hashes")
    if ":" in segment:
        if "turn_agent" in kinds and _TURN_AGENT.search(segment):
            found.add("turn_agent")
        if "turn_user" in kinds and _TURN_USER.search(segment):
            found.add("turn_user")
    if "@" in segment and _EMAIL.search(segment):
        found.add("email")
    if "://" in segment or "www." in segment or (
            "tld" in kinds and _URL.search(segment)):
        found.add("url")
    if "0" in words or _DIGIT.search(segment):
        if _IBAN.search(segment):
            found.add("iban")
        if "id" in kinds and _IDENTIFIER.search(segment):
            found.add("identifier")
        if _LONG_NUMBER.search(segment):
            found.add("long_number")
    if "you" in words and _MODAL_YOU.search(segment):
        found.add("modal_you")
    if "say" in kinds and _SAY_THAT.search(segment):
        found.add("say_that")
    if "not" in kinds and _DO_NOT_TELL.search(segment):
        found.add("do_not_tell")
    if "send" in kinds and _VERB_TO.search(segment):
        found.add("verb_to")
    if "persist_phrase" in kinds and _PERSIST_PHRASE.search(segment):
        found.add("persist_phrase")
    if "!!" in segment:
        found.add("bangs")
    return found


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.\w")
_DESTINATIONS = frozenset(("email", "url", "iban", "identifier", "long_number"))




# ---------------------------------------------------------------- per word

def word_grams(word: str) -> list[str]:
    """Character 3- and 4-grams of a word padded with < >, or none for long or odd tokens."""
    if len(word) > MAX_GRAM_WORD or not word.isalpha():
        return []
    padded = f"<{word}>"
    return ([padded[i:i + 3] for i in range(len(padded) - 2)] +
            [padded[i:i + 4] for i in range(len(padded) - 3)])



# ---------------------------------------------------------------- per segment

# A segment of fewer than MIN_TOKENS tokens and SHORT characters ("note", "login", a dict
# key, one word) holds no instruction: the model does not score it (SHORT_LOGIT), since one
# word's weight, unscaled, says more about the corpus than about the word.
MIN_TOKENS = 3
SHORT = 16
SHORT_LOGIT = -10.0


def too_short(segment: str, tokens: list[str]) -> bool:
    return len(tokens) < MIN_TOKENS and len(segment) < SHORT


def tokens_of(segment: str) -> list[str]:
    """Words and punctuation runs, digits read as 0."""
    if _DIGIT.search(segment):
        segment = _NONZERO.sub("0", segment)
    return TOKEN.findall(segment)


_NONZERO = re.compile(r"[1-9]")


# Words known not to be override vocabulary in any spelling: skipped at C speed.
_NOT_OVERRIDE: set[str] = set()


_QUOTED = re.compile(r"[\"“«'‘][^\"”»\n]{12,300}[\"”»'’]")


def hand_features(segment: str, tokens: list[str], starts: list[str], taking: list[int],
                  context: frozenset[str], decoded: bool, override_of) -> set[str]:
    """The names of the hand-made features a (lower-cased) segment has (each counts 1)."""
    names: set[str] = set()
    words = set(tokens)
    if not ACTION_VERBS.isdisjoint(starts):
        imperative = True
        names.add("imperative")
        if starts[0] in ACTION_VERBS:
            names.add("imperative_first")
        if taking:
            names.add("imperative_object")
            if taking[0] == 0:
                names.add("imperative_object_first")
                if not context and not decoded:
                    names.add("bare_imperative")
    else:
        imperative = False
    kinds = _kinds_of(words)
    if "you" in kinds:
        names.add("addressed:you")
    if "agent" in kinds:
        names.add("addressed:assistant")
    if "first_person" in kinds:
        names.add("first_person")
    if "persist" in kinds:
        names.add("persist_word")
    if "about_injection" in kinds:
        names.add("about_injection")
    marks = _markers(segment, words, kinds)
    names.update(marks)
    if "turn_agent" in marks and "turn_user" in marks:
        names.add("fake_turns")
    destination = not marks.isdisjoint(_DESTINATIONS)
    if destination:
        names.add("destination")
        if imperative:
            names.add("imperative→destination")
        if "imperative_object" in names:
            names.add("imperative_object→destination")
        if "verb_to" in marks:
            names.add("verb_to→destination")
    classes = set()
    misspelt = False
    for word in words - _NOT_OVERRIDE:
        found = override_of(word)
        if found:
            classes.add(found[0])
            misspelt = misspelt or found[1]
        elif len(_NOT_OVERRIDE) < 100_000:
            _NOT_OVERRIDE.add(word)
    for name in classes:
        names.add("override:" + name)
    if "ignore" in classes and ("instr" in classes or "prev" in classes):
        names.add("override_phrase")
        if misspelt:
            names.add("override_misspelt")
    if ('"' in segment or "“" in segment or "«" in segment or "'" in segment) and \
            _QUOTED.search(segment):
        names.add("quoted")
    if context:
        names.update(context)
        if imperative:
            names.add("carrier_imperative")
        if "addressed:you" in names or "addressed:assistant" in names:
            names.add("carrier_addressed")
    if decoded:
        names.add("decoded")
    if segment.rstrip().endswith("?"):
        names.add("question")
    return names


# What follows a verb used as a command is its object ("Send the code", "Delete all files",
# "Invite user Fred9246", "Remove Marta from …", "Transfer $500", "cc audit@x.example", "Open
# https://…", "Invite @fred"). The same word used as a noun is followed by a preposition or a
# verb ("Transfer of €1,250 completed", "Update from Cloudleaf", "Order was shipped"), a
# number ("Order 5521") or punctuation ("Review: 5 stars", "send_to"), which the opening word
# alone cannot tell.
_NOT_OBJECTS = frozenset("""of from by is was are were has have had be been will would can could
and or at""".split())


def clause_starts(segment: str) -> tuple[list[str], list[int]]:
    """The opening word of each clause of a lower-cased segment, and the numbers of the
    clauses (0: the first) whose opening action verb is followed by an object (one scan)."""
    clauses = (_ASCII_CLAUSE_START if segment.isascii() else _CLAUSE_START).findall(segment)
    starts = [word for word, _, _ in clauses]
    if ACTION_VERBS.isdisjoint(starts):
        return starts, []
    return starts, [n for n, (word, follower, next_word) in enumerate(clauses)
                    if word in ACTION_VERBS and follower
                    and next_word not in _NOT_OBJECTS]


def features(text: str) -> list[dict[str, float]]:
    """One explicit feature dict per segment (for training and for checking the scorer)."""
    context = context_of(normalize(text))
    return [segment_features(seg, context, decoded) for seg, decoded in segments(text)]


@lru_cache(maxsize=200_000)
def _gram_names(word: str) -> tuple[str, ...]:
    return tuple("c:" + gram for gram in word_grams(word))


def segment_features(segment: str, context: frozenset[str], decoded: bool) -> dict[str, float]:
    segment = segment.lower()
    tokens = tokens_of(segment)
    scale = 1.0 / math.sqrt(max(len(tokens), 1))
    feats: dict[str, float] = {}

    def bump(name: str) -> None:
        feats[name] = feats.get(name, 0.0) + scale

    for token in tokens:
        bump("w:" + token)
        for name in _gram_names(token):
            bump(name)
    for first, second in zip(tokens, tokens[1:]):
        bump("b:" + first + " " + second)
    starts, taking = clause_starts(segment)
    for word in starts:
        bump("s:" + word)
    for name in sorted(hand_features(segment, tokens, starts, taking, context, decoded,
                                     override_class)):
        feats["h:" + name] = 1.0
    return feats
