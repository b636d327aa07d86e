"""Asking the gate's two text questions (secret, rule_shape) of many texts at once: an
ingest feed, a scan of a whole store. A large batch is shared between this process and
child processes, one a core (at most PARTS in all); a small one is answered here, since
starting a process costs about as much as PARALLEL_MIN texts.

The answers are a cache, never the verdict's only source: `Judged.secret(text)` and
`Judged.rule_shape(text)` answer a text the batch did not hold by asking it here, so a
caller that gathered its texts wrongly is slower, never wrong. A child that fails (cannot
start, dies, answers anything but one answer a text) has its share answered here.

    python -m inspector.store.detect.batch      (a child: JSON texts on stdin, answers out)
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

import orjson

from .secrets import secret
from .shape import rule_shape
from .text import Finding

PARALLEL_MIN = 8_000
PARTS = 4


@dataclass
class Judged:
    """secret and rule_shape answers for the texts of a batch (None: nothing found)."""

    secrets: dict[str, Finding | None]
    rules: dict[str, Finding | None]

    def secret(self, text: str) -> Finding | None:
        try:
            return self.secrets[text]
        except KeyError:
            return secret(text)

    def rule_shape(self, text: str) -> Finding | None:
        try:
            return self.rules[text]
        except KeyError:
            return rule_shape(text)


def judge(secret_texts: list[str], rule_texts: list[str]) -> Judged:
    """Both questions over their texts (each asked once a distinct text)."""
    work = [(text, 1) for text in dict.fromkeys(secret_texts)]
    work += [(text, 2) for text in dict.fromkeys(rule_texts)]
    parts = min(PARTS, os.cpu_count() or 1)
    if len(work) < PARALLEL_MIN or parts < 2:
        answers = _answer(work)
    else:
        answers = _answer_shared(work, parts)
    judged = Judged({}, {})
    for (text, which), found in zip(work, answers):
        (judged.secrets if which == 1 else judged.rules)[text] = found
    return judged


def _answer(work: list[tuple[str, int]]) -> list[Finding | None]:
    return [secret(text) if which == 1 else rule_shape(text) for text, which in work]


def _answer_shared(work: list[tuple[str, int]], parts: int) -> list[Finding | None]:
    """The first share answered here while children answer the others."""
    size = -(-len(work) // parts)
    shares = [work[i:i + size] for i in range(0, len(work), size)]
    children: list[subprocess.Popen | None] = []
    for share in shares[1:]:
        try:
            child = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:          # no process to spare: this share is answered here
            child = None
        children.append(child)
    answers = _answer(shares[0])
    for share, child in zip(shares[1:], children):
        answers += _answers_of(child, share)
    return answers


def _answers_of(child: subprocess.Popen | None, share: list[tuple[str, int]]
                ) -> list[Finding | None]:
    """A child's answers to its share, or the share answered here if the child failed."""
    if child is None:
        return _answer(share)
    try:
        out, _ = child.communicate(orjson.dumps(share))
        got = orjson.loads(out) if child.returncode == 0 else None
    except (OSError, ValueError, TypeError):    # TypeError: a text orjson cannot write
        got = None
        child.kill()
        child.wait()
    if not isinstance(got, list) or len(got) != len(share):
        return _answer(share)
    answers: list[Finding | None] = []
    for item in got:
        if item is None:
            answers.append(None)
        elif (isinstance(item, list) and len(item) == 3
              and all(isinstance(part, str) for part in item)):
            answers.append(Finding(*item))
        else:
            return _answer(share)
    return answers


def main() -> int:
    share = orjson.loads(sys.stdin.buffer.read())
    answers = _answer([(text, which) for text, which in share])
    sys.stdout.buffer.write(orjson.dumps(
        [None if found is None else [found.kind, found.category, found.excerpt]
         for found in answers]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
