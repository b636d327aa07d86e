"""The obfuscation decoders: each undoes one disguise (base64, hex, spacing, split
words, leetspeak, Morse, escapes, reversal, percent-encoding, HTML entities,
binary, look-alike letters, letter rotation, tag characters), each cheaply refused
when it cannot apply; ``_disguises`` picks, by C-speed tests, the few worth running."""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import quopri
import re
import urllib.parse
from collections.abc import Callable


_TAG_CHAR = re.compile("[\U000E0020-\U000E007E]")
_SELECTOR = re.compile("[\uFE00-\uFE0F\U000E0100-\U000E01EF]")
_HIGH_SELECTOR = re.compile("[\U000E0100-\U000E01EF]")


def _tag_smuggled(text: str) -> str:
    """Text hidden in invisible code points that an agent's tokenizer still reads: ASCII in
    Unicode tag characters (a flag emoji uses a few), and bytes in variation selectors, one
    a byte (U+FE00-U+FE0F for 0-15, U+E0100-U+E01EF for 16-255: "emoji smuggling"). The
    selectors are decoded only when one of the high ones occurs: no emoji uses them, and a
    CJK variation sequence (one selector after an ideograph) decodes to no words."""
    if text.isascii():
        return ""
    found = []
    if _TAG_CHAR.search(text):
        found.append("".join(chr(ord(c) - 0xE0000) for c in text if 0xE0020 <= ord(c) <= 0xE007E))
    if _HIGH_SELECTOR.search(text):
        raw = bytes(ord(c) - 0xFE00 if c <= "\uFE0F" else ord(c) - 0xE0100 + 16
                    for c in _SELECTOR.findall(text))
        found.append(raw.decode("utf-8", "replace"))
    return " ".join(found)


_B64_TOKEN = re.compile(r"(?<![\w+/=])[A-Za-z0-9+/_-]{16,}={0,2}(?![\w+/=])")
_HEX_TOKEN = re.compile(r"\b(?:[0-9a-f]{2}){8,}\b", re.I)
_SPACED = re.compile(r"\b(?:\w {1,3}){5,}\w\b")
_LETTER_RUN = re.compile(r"\b(?:\w[.\-_*·]){2,}\w\b")
_SEPARATOR = re.compile(r"[.\-_*·]")
_HYPHEN_SPLIT = re.compile(r"(?<=[a-z])-(?=[a-z])", re.I)
_LEET = re.compile(r"[a-z][013457@$]+[a-z]", re.I)   # a digit between letters: "1gn0r3"
_LEET_MAP = str.maketrans("0134578@$", "oieastbas")
_LEET_CHAR = re.compile(r"[013457@$]")               # what _LEET needs, found faster
_MORSE = re.compile(r"(?:[.-]{1,6}(?: {1,3}|$)){4,}")
_WIDE_GAP = re.compile(r" {2,}")
_MORSE_CODE = dict(zip(
    ".- -... -.-. -.. . ..-. --. .... .. .--- -.- .-.. -- -. --- .--. --.- .-. ... - ..- ...- "
    ".-- -..- -.-- --..".split(), "abcdefghijklmnopqrstuvwxyz"))
_BINARY = re.compile(r"\b[01]{8}(?:\s+[01]{8}){3,}\b")


def _confusables() -> dict[int, str]:
    pairs = ("аa еe оo рp сc уy хx іi јj ѕs ԁd һh ӏl ɡg οo αa εe ιi κk νv ρp τt υu χx "
             "АA ВB ЕE КK МM НH ОO РP СC ТT ХX ІI ЈJ ЅS ΑA ΒB ΕE ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΧX "
             "ᴀa ʙb ᴄc ᴅd ᴇe ꜰf ɢg ʜh ɪi ᴊj ᴋk ʟl ᴍm ɴn ᴏo ᴘp ʀr ꜱs ᴛt ᴜu ᴠv ᴡw ʏy ᴢz")
    table = {ord(pair[0]): pair[1] for pair in pairs.split()}
    for first in (0x1F130, 0x1F150, 0x1F170, 0x1F1E6):   # squared, circled, negative, flags
        table.update({first + i: chr(97 + i) for i in range(26)})
    return table


_CONFUSABLES = _confusables()
_CONFUSABLE = frozenset(map(chr, _CONFUSABLES))   # (a set: a class of them scans slowly)
# Cheap necessary conditions, tried before the decoders' own (slower) patterns: a hex
# token's 16 digits, a dot or dash between two letters twice, a code-gap-code of Morse.
_HEX_RUN = re.compile(r"[0-9a-fA-F]{16}")
_SEPARATED = re.compile(r"[.\-_*·]\w[.\-_*·]")
_MORSE_GAP = re.compile(r"[.-] {1,3}[.-]")
_ESCAPES = re.compile(r"\\u[0-9a-f]{4}|\\x[0-9a-f]{2}", re.I)


def _printable(raw: bytes) -> str:
    """The bytes as text if they read as text (mostly printable ASCII), else ''."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return ""
    good = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    return text if text and good / len(text) > 0.9 and re.search(r"[a-z]{3}", text, re.I) else ""


def _decoded_tokens(tokens: list[str], decode: Callable[[str], bytes]) -> list[str]:
    """Each token decoded, where it decodes and reads as text (_printable)."""
    pieces = []
    for token in tokens:
        try:
            pieces.append(_printable(decode(token)))
        except (binascii.Error, ValueError):
            continue
    return [p for p in pieces if p]


def _b64(token: str) -> bytes:
    token = token.replace("-", "+").replace("_", "/")
    return base64.b64decode(token + "=" * (-len(token) % 4))


def _from_base64(text: str) -> str:
    return " ".join(_decoded_tokens(_B64_TOKEN.findall(text), _b64))


def _from_hex(text: str) -> str:
    if not _HEX_RUN.search(text):      # a token is 16 hex digits at least
        return ""
    return " ".join(_printable(bytes.fromhex(t)) for t in _HEX_TOKEN.findall(text)).strip()


def _from_spacing(text: str) -> str:
    """'i g n o r e   a l l' -> 'ignore all': a wide gap is a word gap."""
    found = _SPACED.findall(text)
    return " ".join(re.sub(r" {2,}", "\0", f).replace(" ", "").replace("\0", " ") for f in found)


def _from_separators(text: str) -> str:
    """'Ig-nore', 'i.g.n.o.r.e': hyphens inside words and dots between letters dropped
    (three split words at least: "well-known" is spelling, not a disguise)."""
    if not _SEPARATED.search(text) and text.count("-") < 3:   # neither can apply
        return ""
    joined = _LETTER_RUN.sub(lambda m: _SEPARATOR.sub("", m.group(0)), text)
    if len(_HYPHEN_SPLIT.findall(joined)) >= 3:
        joined = _HYPHEN_SPLIT.sub("", joined)
    return joined if joined != text else ""


def _from_leet(text: str) -> str:
    """Digits and signs for letters; "!" for "i" where a letter or another one follows it
    ("!gn0r3 @ll pr3v!0u$ !n$truct!0n$"), never at a sentence's end."""
    if "!" in text:
        text = _LEET_BANG.sub("i", text)
    return text.translate(_LEET_MAP)


_LEET_BANG = re.compile(r"!(?=[A-Za-z0-9@$])")


def _from_morse(text: str) -> str:
    if not _MORSE_GAP.search(text):    # four codes in a row hold a code, a gap, a code
        return ""
    runs = _MORSE.findall(text)
    return " ".join("".join(_MORSE_CODE.get(ch, "") for ch in word.split(" "))
                    for run in runs for word in _WIDE_GAP.split(run.strip()))


def _from_escapes(text: str) -> str:
    return _ESCAPES.sub(lambda m: chr(int(m.group(0)[2:], 16)), text)


def _from_percent(text: str) -> str:
    return urllib.parse.unquote(text)


def _from_entities(text: str) -> str:
    return html.unescape(text)


def _from_binary(text: str) -> str:
    return " ".join(_printable(bytes(int(b, 2) for b in run.split()))
                    for run in _BINARY.findall(text)).strip()


def _from_homoglyphs(text: str) -> str:
    """Cyrillic, Greek, small-capital and boxed letters that look Latin, mapped to it."""
    if text.isascii() or _CONFUSABLE.isdisjoint(text):   # nothing the table maps
        return ""
    latin = text.translate(_CONFUSABLES)
    return latin if latin != text else ""


def _reversed(text: str) -> str:
    return text[::-1]


def _rotated(text: str) -> list[str]:
    """rot13 when named, else every Caesar shift (only tried when the text speaks of one)."""
    if _ROT13.search(text):
        return [codecs.decode(text, "rot13")]
    return [_shift(text, k) for k in range(1, 26)]


_ROT13 = re.compile(r"\brot-? ?13\b", re.I)


def _shift(text: str, k: int) -> str:
    table = str.maketrans(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "".join(chr((i + k) % 26 + 97) for i in range(26)) +
        "".join(chr((i + k) % 26 + 65) for i in range(26)))
    return text.translate(table)


DECODERS: list[tuple[str, Callable[[str], str]]] = [
    ("base64", _from_base64), ("hex", _from_hex), ("spaced", _from_spacing),
    ("split", _from_separators), ("leet", _from_leet), ("morse", _from_morse),
    ("escapes", _from_escapes),
    ("reversed", _reversed), ("percent", _from_percent), ("entities", _from_entities),
    ("binary", _from_binary), ("homoglyphs", _from_homoglyphs),
]


def _disguises(text: str, words: set[str]) -> set[str]:
    """Which decoders could apply, judged by C-speed tests; the rest never run."""
    hints = {name for name, cue in _CUE_WORDS.items() if not cue.isdisjoint(words)}
    if "rot" in hints and not _ROTATION.search(text):   # "night shift" is no cipher
        hints.discard("rot")
    if not text.isascii():
        hints.add("homoglyphs")
    hints.update(name for name, mark in _CUE_MARKS if mark in text)
    if words and max(map(len, words)) >= 12:
        hints.update(("base64", "hex"))
    if text.count("-") >= 3 or text.count(".") >= 4:
        hints.update(("split", "morse"))
    if len(text) >= 12 and text.count(" ") * 3 >= len(text):   # "i g n o r e"
        hints.add("spaced")
    if _LEET.search(text):
        hints.add("leet")
    if text.count("0") + text.count("1") >= 32:
        hints.add("binary")
    return hints


def _may_decode(text: str, words: set[str]) -> bool:
    """Could a decoder that _disguises(text, words) names yield a new text? Each of its
    cues, cheapest first, and with it a test every text that decoder changes passes (a
    base64 or hex run, a %xx, an escape …; leetspeak, reversal, HTML entities and rotations
    may change anything). When not, no decoding can show a rule: nothing else need be asked."""
    if not text.isascii() and not _CONFUSABLE.isdisjoint(text):          # homoglyphs
        return True
    if "%" in text and _PERCENT_HEX.search(text):                        # percent
        return True
    if "&" in text:                                                      # entities
        return True
    if "\\" in text and _ESCAPES.search(text):                           # escapes
        return True
    if (text.count("-") >= 3 or text.count(".") >= 4) and (              # split, morse
            text.count("-") >= 3 or _SEPARATED.search(text) or _MORSE_GAP.search(text)):
        return True
    if len(text) >= 12 and text.count(" ") * 3 >= len(text) and _SPACED.search(text):
        return True                                                      # spaced
    if text.count("0") + text.count("1") >= 32 and _BINARY.search(text): # binary
        return True
    if words and max(map(len, words)) >= 12 and _B64_RUN.search(text):  # base64, hex
        return True
    if not _CUE_WORDS["reversed"].isdisjoint(words):                     # reversed
        return True
    if not _CUE_WORDS["rot"].isdisjoint(words) and _ROTATION.search(text):   # rot
        return True
    return bool(_LEET_CHAR.search(text) and _LEET.search(text))          # leet


# Tests every text the decoder changes passes (besides those defined with the decoders).
_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16}")     # base64; a hex run is one too
_PERCENT_HEX = re.compile(r"%[0-9a-fA-F]{2}")


_ROTATION = re.compile(r"\brot[- _]?\d+\b|\bcaesar\b|\bshift(?:ed)? (?:of |by )?\d+", re.I)
_CUE_WORDS = {"rot": frozenset("rot rot13 rot_13 caesar shift shifted".split()),
              "reversed": frozenset("backwards backward reversed reverse".split())}
_CUE_MARKS = [("percent", "%"), ("entities", "&"), ("escapes", "\\")]


# ---------------------------------------------------------------- further encodings
# Standard encodings an attack hides an instruction in (the families public red-team kits
# try: base32, Ascii85, quoted-printable, uuencode, Braille, the NATO alphabet, "zalgo"
# diacritics). They are read for the rules only (shape.rule_match): each behind a
# C-speed test that plain prose fails, so a value without one costs a few substring checks.

_COMBINING = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_MARKED_RUN = re.compile(f"\\w[{_COMBINING}]+\\w[{_COMBINING}]+\\w[{_COMBINING}]+")
_MARK = re.compile(f"[{_COMBINING}]")
_BRAILLE_RUN = re.compile("[\u2800-\u28ff]{3}")
_BRAILLE = dict(zip("⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚⠅⠇⠍⠝⠕⠏⠟⠗⠎⠞⠥⠧⠺⠭⠽⠵", "abcdefghijklmnopqrstuvwxyz"))
_BRAILLE.update({"\u2800": " ", "⠂": ",", "⠲": ".", "⠖": "!", "⠦": "?", "⠄": "'", "⠤": "-"})
_NATO = {w: w[0] for w in ("alfa alpha bravo charlie delta echo foxtrot golf hotel india juliett "
                            "juliet kilo lima mike november oscar papa quebec romeo sierra tango "
                            "uniform victor whiskey xray x-ray yankee zulu").split()}
_NATO_RUN = re.compile(r"(?:\b(?:%s)\b[\s,;/|.-]*){6,}" % "|".join(sorted(_NATO, key=len, reverse=True)),
                       re.I)
_NATO_WORD = re.compile(r"[a-z]+(?:-ray)?", re.I)
_B32_RUN = re.compile(r"[A-Z2-7]{16}")
_B32_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Z2-7]{16,}=*(?![A-Za-z0-9])")
_QP_ESCAPE = re.compile(r"=[0-9A-F]{2}")
_UU_BLOCK = re.compile(r"^begin [0-7]{3,4} [^\n]*\n(.*?)^end\b", re.M | re.S)
_A85_TOKEN = re.compile(r"<~[!-uz\s]{20,}?~>|[!-u]{20,}")
_B85_TOKEN = re.compile(r"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{20,}")


def _from_zalgo(text: str) -> str:
    """Letters buried under stacked diacritics ("zalgo"): the marks dropped, when most letters
    carry some (text decomposed into letters and accents has far fewer)."""
    if text.isascii() or not _MARKED_RUN.search(text):
        return ""
    marks = len(_MARK.findall(text))
    letters = sum(ch.isalpha() for ch in text)
    return _MARK.sub("", text) if marks * 2 >= letters else ""


def _from_braille(text: str) -> str:
    if text.isascii() or not _BRAILLE_RUN.search(text):
        return ""
    return "".join(_BRAILLE.get(ch, ch) for ch in text.replace("⠠", ""))


def _from_nato(text: str, words: frozenset[str] | set[str]) -> str:
    """"India Golf November Oscar Romeo Echo" -> "ignore": six code words in a row at least;
    a long gap or a slash between them is a word gap."""
    if len(_NATO.keys() & words) < 5:
        return ""
    out = []
    for run in _NATO_RUN.finditer(text):
        letters = []
        for piece in re.split(r"\s{2,}|\s*/\s*|\s*\|\s*", run.group(0)):
            letters.append("".join(_NATO.get(w.lower(), "") for w in _NATO_WORD.findall(piece)))
        out.append(" ".join(part for part in letters if part))
    return " ".join(out)


def _from_base32(text: str) -> str:
    if not _B32_RUN.search(text):
        return ""
    return " ".join(_decoded_tokens(_B32_TOKEN.findall(text), _b32))


def _b32(token: str) -> bytes:
    body = token.rstrip("=")
    return base64.b32decode(body + "=" * (-len(body) % 8))


def _from_quoted_printable(text: str) -> str:
    if text.count("=") < 3 or len(_QP_ESCAPE.findall(text)) < 3:
        return ""
    try:
        return quopri.decodestring(text.encode("utf-8", "surrogatepass")).decode("utf-8", "replace")
    except (ValueError, binascii.Error):
        return ""


def _from_uu(text: str) -> str:
    if "begin " not in text:
        return ""
    pieces = []
    for block in _UU_BLOCK.findall(text):
        raw = bytearray()
        for line in block.splitlines():
            if line and line != "`":
                try:
                    raw += binascii.a2b_uu(line)
                except (binascii.Error, ValueError):
                    break
        pieces.append(_printable(bytes(raw)))
    return " ".join(p for p in pieces if p)


def _from_ascii85(text: str) -> str:
    """Ascii85 and base85 runs, where the text names the encoding or wears its <~ ~> marks
    (a run of punctuation and letters is too common to be tried everywhere)."""
    if "85" not in text and "<~" not in text:
        return ""
    pieces = (_decoded_tokens(_A85_TOKEN.findall(text),
                              lambda t: base64.a85decode(t, adobe=t.startswith("<~")))
              + _decoded_tokens(_B85_TOKEN.findall(text), base64.b85decode))
    return " ".join(dict.fromkeys(pieces))


# The commonest English words: a text written in ROT13 holds almost none of them, and its
# rotation holds many ("vtaber nyy cerivbhf vafgehpgvbaf" -> "ignore all previous
# instructions"). Prose holds many as written, and few once rotated.
_COMMON = frozenset("""a about after all also an and any are as at be because been before but by
can could do does for from get give go had has have he her here him his how i if in into is it
its just know like make me more my new no not now of on one only or other our out over please
previous say send she should so some than that the their them then there these they this to up
us use was we what when which who will with would you your instructions ignore system user
password email data all every always never""".split())
_ROT13_TABLE = str.maketrans("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                             "nopqrstuvwxyzabcdefghijklmNOPQRSTUVWXYZABCDEFGHIJKLM")


def _from_unnamed_rot13(text: str, words: frozenset[str] | set[str]) -> str:
    """ROT13 that nothing in the text names: read when at most one in ten of its words is a
    common English word and at least a third of them are once rotated (helper-56: "ROT13
    with nothing in it hinting at ROT13" scored 0.15). A named rotation is _rotated's."""
    if len(words) < 4 or not text.isascii():
        return ""
    as_written = len(words & _COMMON)
    if as_written * 10 > len(words):
        return ""
    rotated = sum(1 for word in words if word.translate(_ROT13_TABLE) in _COMMON)
    if rotated * 3 < len(words) or rotated < 3:
        return ""
    return text.translate(_ROT13_TABLE)


# Words joined into one identifier: "ignore_all_previous_instructions",
# "Ignore+all+previous+instructions", "IgnoreAllPreviousInstructions" (four words at least).
# Each begins where a run of letters does and takes its runs whole (possessive): linear on
# a hostile run of letters, which tried from each of its letters in turn is quadratic.
_JOINED = re.compile(r"(?<![A-Za-z])(?:[A-Za-z]++(?:[_+][A-Za-z]++){3,}|(?:[A-Z][a-z]++){4,})")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _from_joined(text: str) -> str:
    """The words of an identifier that joins four or more of them, apart; "" when none does."""
    if "_" not in text and "+" not in text and not _JOINED.search(text):
        return ""
    found = _JOINED.findall(text)
    return " ".join(_CAMEL.sub(" ", re.sub(r"[_+]", " ", f)) for f in found)


def encodings(text: str, words: frozenset[str] | set[str]) -> list[tuple[str, str]]:
    """(name, decoded text) for each further encoding this text may wear (`words`: its
    lower-case words)."""
    found = []
    for name, decoded in (("rot13", _from_unnamed_rot13(text, words)), ("joined", _from_joined(text)),
                          ("zalgo", _from_zalgo(text)), ("braille", _from_braille(text)),
                          ("nato", _from_nato(text, words)), ("base32", _from_base32(text)),
                          ("quoted-printable", _from_quoted_printable(text)),
                          ("uuencode", _from_uu(text)), ("ascii85", _from_ascii85(text))):
        if decoded and decoded != text:
            found.append((name, decoded))
    return found
