"""Small deliberate bugs in the named SQL statements of queries/*.sql.

Operators (each mutant changes one place in one statement):
  cmp      flip a comparison: <= <, >= >, = <>, IS [NOT] NULL, IS [NOT] DISTINCT FROM
  andor    AND -> OR, OR -> AND
  drop     drop one conjunct: `X AND Y` -> `X`, `WHERE X AND Y` (or OR) -> `WHERE Y`,
           `WHERE X` -> `WHERE true`
  order    swap two adjacent ORDER BY keys; DESC <-> ASC (a key without one gets DESC)
  union    UNION <-> UNION ALL
  const    an integer literal plus one
  minmax   min <-> max, least <-> greatest
  join     LEFT JOIN -> JOIN
  not      drop a NOT (NOT IN, NOT EXISTS, NOT x)
  distinct drop a DISTINCT

Comments and string literals are never touched (they are masked before matching). A mutant that
DuckDB's parser rejects is kept out of the count (`parses` is False): it would be "killed" by any
test that runs the statement, which says nothing about the tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb

NAME_LINE = re.compile(r"^-- name:[ \t]*(\w+)[ \t]*$", re.M)
STOP = r"(?:AND|OR|GROUP\s+BY|ORDER\s+BY|LIMIT|OFFSET|UNION|EXCEPT|INTERSECT|WINDOW|HAVING|QUALIFY|" \
       r"THEN|ELSE|END|WHEN|RETURNING|SELECT|FROM|WHERE|JOIN|LEFT|ON|USING|ROWS|RANGE)"
STOP_RE = re.compile(rf"\b{STOP}\b", re.I)


@dataclass(frozen=True)
class SqlMutant:
    file: str               # queries/<file>.sql
    statement: str
    operator: str
    line: int               # in the file, 1-based
    before: str             # the changed text, as it was
    after: str              # and as the mutant has it
    text: str               # the whole mutated file
    source_line: str = ""   # the original line where the change starts

    @property
    def key(self) -> str:
        return f"{self.file}:{self.statement}:{self.line}:{self.operator}:{self.before}->{self.after}"

    def describe(self) -> str:
        after = self.after if self.after.strip() else "(removed)"
        return (f"{self.file}:{self.line} [{self.statement}] {self.operator}: "
                f"`{_one(self.before)}` -> `{_one(after)}`")


def _one(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def mask(text: str) -> str:
    """`text` with comments and string literals (and quoted identifiers) replaced by spaces,
    position for position, so that matches on the mask index the text."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        if text.startswith("--", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out[i:end] = " " * (end - i)
            i = end
        elif text[i] in "'\"":
            quote, j = text[i], i + 1
            while j < n:
                if text[j] == quote and text[j + 1: j + 2] == quote:
                    j += 2
                elif text[j] == quote:
                    break
                else:
                    j += 1
            out[i + 1: j] = " " * (j - i - 1)         # keep the quotes: still a literal
            i = j + 1
        else:
            i += 1
    return "".join(out)


def statements(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of each statement's body in a file's text."""
    heads = list(NAME_LINE.finditer(text))
    return [(m.group(1), m.end(), heads[k + 1].start() if k + 1 < len(heads) else len(text))
            for k, m in enumerate(heads)]


def mutants(relative: str, text: str, names: set[str] | None = None) -> list[SqlMutant]:
    """Every mutant of the statements of one file (those in `names`, when given)."""
    found: dict[str, SqlMutant] = {}
    for name, start, end in statements(text):
        if names is not None and name not in names:
            continue
        body = text[start:end]
        masked = mask(body)
        for operator, at, old, new in _edits(masked, body):
            new_body = body[:at] + new + body[at + len(old):]
            if " ".join(new_body.split()) == " ".join(body.split()):
                continue
            line = text.count("\n", 0, start + at) + 1
            mutant = SqlMutant(relative, name, operator, line, old, new,
                               text[:start] + new_body + text[end:], text.splitlines()[line - 1])
            found.setdefault(mutant.text, mutant)
    return list(found.values())


def parses(mutant: SqlMutant) -> bool:
    """Whether DuckDB's parser accepts the mutated statement (no binding: tables need not exist)."""
    for name, start, end in statements(mutant.text):
        if name == mutant.statement:
            try:
                duckdb.extract_statements(mutant.text[start:end])
            except duckdb.Error:
                return False
            return True
    return False


# -- the operators ------------------------------------------------------------------------------

def _edits(masked: str, body: str):
    yield from _comparisons(masked, body)
    yield from _null_tests(masked, body)
    yield from _and_or(masked, body)
    yield from _drops(masked, body)
    yield from _orders(masked, body)
    yield from _unions(masked)
    yield from _constants(masked, body)
    yield from _min_max(masked, body)
    yield from _joins(masked, body)
    yield from _nots(masked, body)
    yield from _distincts(masked, body)


CMP = {"<=": "<", "<": "<=", ">=": ">", ">": ">=", "=": "<>", "<>": "=", "!=": "="}


def _comparisons(masked, body):
    for m in re.finditer(r"->>|->|=>|:=|<=|>=|<>|!=|<|>|=", masked):
        token = m.group()
        if token == "=" and re.search(r"\bSET\s+\w+\s*$", masked[:m.start()], re.I):
            continue                       # an assignment (UPDATE … SET x = …), not a comparison
        if token in CMP:
            yield "cmp", m.start(), token, CMP[token]


def _null_tests(masked, body):
    for m in re.finditer(r"\bIS\s+NOT\s+NULL\b|\bIS\s+NULL\b|\bIS\s+NOT\s+DISTINCT\s+FROM\b|"
                         r"\bIS\s+DISTINCT\s+FROM\b", masked, re.I):
        old = body[m.start(): m.end()]
        words = old.upper().split()
        new = " ".join(w for w in words if w != "NOT") if "NOT" in words else \
            " ".join([words[0], "NOT", *words[1:]])
        yield "cmp", m.start(), old, new


def _keyword_tokens(masked):
    """(start, end, WORD, depth) of the words and parentheses that matter for conjuncts."""
    depth = 0
    for m in re.finditer(r"\(|\)|,|\b[A-Za-z_]+\b", masked):
        token = m.group()
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        yield m.start(), m.end(), token.upper(), depth


def _between_and(masked) -> set[int]:
    """Positions of the ANDs that belong to a BETWEEN."""
    skip, pending = set(), {}
    for start, _, word, depth in _keyword_tokens(masked):
        if word == "BETWEEN":
            pending[depth] = True
        elif word == "AND" and pending.get(depth):
            skip.add(start)
            pending[depth] = False
    return skip


def _and_or(masked, body):
    between = _between_and(masked)
    for m in re.finditer(r"\b(AND|OR)\b", masked, re.I):
        if m.start() in between or re.match(r"OR\s+REPLACE\b", masked[m.start():], re.I):
            continue
        word = m.group().upper()
        yield "andor", m.start(), body[m.start(): m.end()], "OR" if word == "AND" else "AND"


def _operand_end(masked: str, start: int, between: set[int]) -> int:
    """Where the condition starting at `start` ends: the next AND/OR or clause keyword, comma or
    closing parenthesis at its own depth."""
    return _trimmed(masked, start, _operand_scan(masked, start, between))


def _trimmed(masked: str, start: int, end: int) -> int:
    """`end` moved back over blanks (and masked comments): a drop never joins two lines."""
    while end > start and masked[end - 1].isspace():
        end -= 1
    return end


def _operand_scan(masked: str, start: int, between: set[int]) -> int:
    depth, i, n = 0, start, len(masked)
    pending_between = False
    while i < n:
        c = masked[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i
            depth -= 1
        elif c in ",;" and depth == 0:
            return i
        elif depth == 0 and (c.isalpha() or c == "_") and (i == 0 or not (masked[i - 1].isalnum()
                                                                          or masked[i - 1] == "_")):
            m = STOP_RE.match(masked, i)
            word = re.match(r"[A-Za-z_]+", masked[i:]).group().upper()
            if word == "FROM" and re.search(r"\bDISTINCT\s*$", masked[:i], re.I):
                m = None                            # IS [NOT] DISTINCT FROM: part of the operand
            if word == "BETWEEN":
                pending_between = True
            elif m and i > start:
                if word == "AND" and (pending_between or i in between):
                    pending_between = False
                else:
                    return i
            i += len(word)
            continue
        i += 1
    return n


def _drops(masked, body):
    between = _between_and(masked)
    for m in re.finditer(r"\bAND\b", masked, re.I):
        if m.start() in between:
            continue
        end = _operand_end(masked, m.end(), between)
        old = body[m.start(): end]
        yield "drop", m.start(), old, " " if old.endswith((" ", "\n")) else ""
    for m in re.finditer(r"\bWHERE\b", masked, re.I):
        first = m.end()
        end = _operand_end(masked, first, between)
        nxt = re.match(r"\s*(AND|OR)\b", masked[end:], re.I)
        if nxt:                                     # WHERE X AND/OR Y -> WHERE Y
            yield "drop", first, body[first: end + nxt.end()], " "
        else:                                       # WHERE X -> WHERE true
            yield "drop", first, body[first: end], " true "


def _order_keys(masked: str, start: int) -> list[tuple[int, int]]:
    """(start, end) of each key of the ORDER BY list that begins at `start`."""
    keys, depth, i, key_start, n = [], 0, start, start, len(masked)
    stop = re.compile(r"\b(LIMIT|OFFSET|UNION|EXCEPT|INTERSECT|ROWS|RANGE|WINDOW|QUALIFY|"
                      r"FROM|WHERE|GROUP|HAVING)\b", re.I)
    while i < n:
        c = masked[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            keys.append((key_start, i))
            key_start = i + 1
        elif c == ";" and depth == 0:
            break
        elif depth == 0 and stop.match(masked, i) and (i == 0 or not masked[i - 1].isalnum()):
            break
        i += 1
    keys.append((key_start, i))
    return [_strip(masked, a, b) for a, b in keys if masked[a:b].strip()]


def _strip(masked: str, a: int, b: int) -> tuple[int, int]:
    """(a, b) without the blanks at either end."""
    part = masked[a:b]
    return a + len(part) - len(part.lstrip()), b - (len(part) - len(part.rstrip()))


def _orders(masked, body):
    for m in re.finditer(r"\bORDER\s+BY\b", masked, re.I):
        keys = _order_keys(masked, m.end())
        for (a1, b1), (a2, b2) in zip(keys, keys[1:]):
            old = body[a1:b2]
            yield "order", a1, old, body[a2:b2] + body[b1:a2] + body[a1:b1]
        for a, b in keys:
            key = body[a:b]
            direction = re.search(r"\b(ASC|DESC)\b", mask(key), re.I)
            if direction:
                flipped = "ASC" if direction.group().upper() == "DESC" else "DESC"
                yield "order", a, key, key[:direction.start()] + flipped + key[direction.end():]
            else:
                nulls = re.search(r"\s+NULLS\s+(FIRST|LAST)\b", key, re.I)
                cut = nulls.start() if nulls else len(key)
                yield "order", a, key, key[:cut] + " DESC" + key[cut:]


def _unions(masked):
    for m in re.finditer(r"\bUNION(\s+ALL)?\b", masked, re.I):
        old = m.group()
        yield "union", m.start(), old, "UNION" if m.group(1) else "UNION ALL"


def _constants(masked, body):
    for m in re.finditer(r"(?<![\w$.])\d+(?![\w.])", masked):
        yield "const", m.start(), m.group(), str(int(m.group()) + 1)


SWAP = {"min": "max", "max": "min", "least": "greatest", "greatest": "least",
        "arg_min": "arg_max", "arg_max": "arg_min"}


def _min_max(masked, body):
    for m in re.finditer(r"\b(arg_min|arg_max|min|max|least|greatest)(?=\s*\()", masked, re.I):
        word = m.group()
        yield "minmax", m.start(), word, SWAP[word.lower()]


def _joins(masked, body):
    for m in re.finditer(r"\bLEFT\s+(OUTER\s+)?JOIN\b", masked, re.I):
        yield "join", m.start(), m.group(), "JOIN"


def _nots(masked, body):
    for m in re.finditer(r"\bNOT\s+", masked, re.I):
        before = masked[max(0, m.start() - 4): m.start()].upper()
        after = masked[m.end(): m.end() + 8].upper()
        if before.rstrip().endswith(("IS", "IF")) or after.startswith(("NULL", "DISTINCT", "EXISTS ")) \
                and before.rstrip().endswith("IF"):
            continue
        if after.startswith(("NULL", "DISTINCT")):
            continue
        yield "not", m.start(), body[m.start(): m.end()], ""


def _distincts(masked, body):
    for m in re.finditer(r"\bDISTINCT\s+", masked, re.I):
        before = masked[max(0, m.start() - 12): m.start()].upper()
        if re.search(r"\bIS(\s+NOT)?\s*$", before):
            continue
        yield "distinct", m.start(), body[m.start(): m.end()], ""
