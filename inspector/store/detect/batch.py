"""Asking the gate's two text questions (secret, rule_shape) of many texts at once: an
ingest feed, an import. A large batch is shared between this process and
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
            return _rule_shape()(text)


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


def _rule_shape():
    """shape.rule_shape, imported when first needed (the rules and the model are the costly
    part of importing the detectors)."""
    from .shape import rule_shape
    return rule_shape


def _answer(work: list[tuple[str, int]]) -> list[Finding | None]:
    rule_shape = _rule_shape()
    return [secret(text) if which == 1 else rule_shape(text) for text, which in work]


def _answer_shared(work: list[tuple[str, int]], parts: int) -> list[Finding | None]:
    """Share k holds every parts-th question from the k-th (so each share has as many of the
    costly rule_shape questions as the others); the first is answered here while children
    answer the rest. A child starts late (a new interpreter, the imports, the model file:
    about 0.3 s of CPU, measured), so each hands the last questions of its share, rule_shape
    ones, to this process: PARALLEL_MIN // 8 of them, which take about as long."""
    shares = [list(range(k, len(work), parts)) for k in range(parts)]
    handed = PARALLEL_MIN // 8
    mine = shares[0]
    for share in shares[1:]:
        if handed and len(share) > 2 * handed:
            mine += share[-handed:]
            del share[-handed:]
    children = [_Child([work[i] for i in share]) for share in shares[1:]]
    answers: list[Finding | None] = [None] * len(work)
    for i, found in zip(mine, _answer([work[i] for i in mine])):
        answers[i] = found
    for share, child in zip(shares[1:], children):
        for i, found in zip(share, child.answers()):
            answers[i] = found
    return answers


class _Child:
    """A child process answering one share; `answers()` falls back to answering it here.
    The share is written whole before this process starts its own (the child reads all of
    its input before it answers, so the write ends as soon as it is read); its answers are
    read once this process is done with its own."""

    def __init__(self, share: list[tuple[str, int]]):
        self.share = share
        self.proc: subprocess.Popen | None = None
        try:
            data = orjson.dumps(share)
            self.proc = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            with self.proc.stdin:
                self.proc.stdin.write(data)
        except (OSError, TypeError):    # no process to spare, a child that died, or a text
            self._end()                 # orjson cannot write: the share is answered here

    def _end(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc.stdout.close()
            self.proc = None

    def answers(self) -> list[Finding | None]:
        got = None
        if self.proc is not None:
            try:
                with self.proc.stdout:
                    out = self.proc.stdout.read()
                if self.proc.wait() == 0:
                    got = _parsed(out, len(self.share))
            except OSError:
                self._end()
        return _answer(self.share) if got is None else got


def _parsed(out: bytes, count: int) -> list[Finding | None] | None:
    """A child's answers, or None unless they are one answer (null or [kind, category,
    excerpt]) a question."""
    try:
        got = orjson.loads(out)
    except ValueError:
        return None
    if not isinstance(got, list) or len(got) != count:
        return None
    answers: list[Finding | None] = []
    for item in got:
        if item is None:
            answers.append(None)
        elif (isinstance(item, list) and len(item) == 3
              and all(isinstance(part, str) for part in item)):
            answers.append(Finding(*item))
        else:
            return None
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
