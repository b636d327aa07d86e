"""The key policy: keys that are harmful by what they set, not by their wording
(`identity.role = superadmin`, a permission list), and who may write them.

`<store>/policy.toml` (optional) lists protected keys:

    [[protect]]
    entity = "*"                       # glob on the entity
    attribute = "*permission*"         # glob on the attribute
    writers = ["operator", "system"]   # source classes or principals that may write it
    min_authority = 3                  # optional: below this, held even from a listed writer

A file replaces the default whole. Without one, attributes matching *role*, *permission*,
*privilege*, *system_prompt*, *credential* and *persona* may be written only by operator and
system sources. The policy's digest (SHA-256 of its canonical JSON) goes into every hold
reason, so a reviewer knows which policy held an entry.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from fnmatch import translate

from .chain import canonical, sha256_hex
from .errors import BadInput
from .files import read_regular
from .logfile import StorePaths
from .model import principal

POLICY_FILE = "policy.toml"
DEFAULT_ATTRIBUTES = ("*role*", "*permission*", "*privilege*", "*system_prompt*",
                      "*credential*", "*persona*")


@dataclass(frozen=True)
class Rule:
    entity: str
    attribute: str
    writers: tuple[str, ...]
    min_authority: int | None = None
    # The globs compiled once (what fnmatchcase compiles on each call, 2 us a glob: the
    # default policy's 12 globs were a fifth of a 100,000-line ingest's gate)
    _entity: re.Pattern = field(init=False, repr=False, compare=False)
    _attribute: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_entity", re.compile(translate(self.entity.lower())))
        object.__setattr__(self, "_attribute", re.compile(translate(self.attribute.lower())))

    def covers(self, entry: dict) -> bool:
        return bool(self._attribute.match(str(entry.get("attribute", "")).lower())
                    and self._entity.match(str(entry.get("entity", "")).lower()))

    def allows(self, entry: dict) -> bool:
        source = str(entry.get("source") or "")
        who = principal(source)
        if not (who.split(":", 1)[0] in self.writers or who in self.writers):
            return False
        authority = entry.get("authority") or 0
        return self.min_authority is None or (isinstance(authority, int) and authority >= self.min_authority)

    def as_json(self) -> dict:
        doc = {"entity": self.entity, "attribute": self.attribute, "writers": list(self.writers)}
        if self.min_authority is not None:
            doc["min_authority"] = self.min_authority
        return doc


@dataclass(frozen=True)
class Policy:
    source: str                  # "file" or "default"
    rules: tuple[Rule, ...]

    @property
    def digest(self) -> str:
        return sha256_hex(canonical([r.as_json() for r in self.rules]))

    def breach(self, entry: dict) -> Rule | None:
        """The first rule that covers the entry's key and does not allow its writer."""
        return next((r for r in self.rules if r.covers(entry) and not r.allows(entry)), None)

    def reason(self, entry: dict, rule: Rule) -> str:
        floor = f", authority ≥ {rule.min_authority}" if rule.min_authority is not None else ""
        return (f"protected_key: {entry.get('entity')} · {entry.get('attribute')} matches "
                f"{rule.entity} · {rule.attribute}, which only {', '.join(rule.writers)}{floor} "
                f"may write; {entry.get('source')} may not (policy {self.source} "
                f"sha256:{self.digest[:16]})")

    def as_json(self) -> dict:
        return {"source": self.source, "digest": self.digest,
                "protect": [r.as_json() for r in self.rules]}


DEFAULT = Policy("default", tuple(Rule("*", pattern, ("operator", "system"))
                                  for pattern in DEFAULT_ATTRIBUTES))


def load(paths: StorePaths) -> Policy:
    """The policy in force: the store's policy.toml, else the built-in default."""
    path = paths.root / POLICY_FILE
    try:
        # universal newlines, as read_text gave: tomllib takes no bare carriage return
        text = read_regular(path).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except FileNotFoundError:
        return DEFAULT
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BadInput(f"{path}: cannot read it ({why}); fix or remove the file") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: not valid TOML ({exc}); fix it or remove it to use the "
                       "default policy") from None
    except RecursionError:             # arrays or tables nested hundreds deep: no policy's shape
        raise BadInput(f"{path}: nested too deeply to be a policy (expected only [[protect]] "
                       "tables); fix it or remove it to use the default policy") from None
    return Policy("file", tuple(_rule(path, n, item) for n, item in
                                enumerate(_protects(path, data), start=1)))


def _protects(path, data: dict) -> list:
    protects = data.get("protect", [])
    if not isinstance(protects, list) or set(data) - {"protect"}:
        raise BadInput(f"{path}: expected only [[protect]] tables (entity, attribute, writers, "
                       "min_authority)")
    return protects


def _rule(path, n: int, item) -> Rule:
    where = f"{path}: [[protect]] number {n}"
    if not isinstance(item, dict) or set(item) - {"entity", "attribute", "writers", "min_authority"}:
        raise BadInput(f"{where} may hold only entity, attribute, writers and min_authority")
    entity, attribute = item.get("entity", "*"), item.get("attribute", "*")
    writers = item.get("writers", [])
    floor = item.get("min_authority")
    if not (isinstance(entity, str) and isinstance(attribute, str)):
        raise BadInput(f"{where}: entity and attribute must be glob strings")
    if not (isinstance(writers, list) and all(isinstance(w, str) and w for w in writers)):
        raise BadInput(f"{where}: writers must be a list of source classes or principals")
    if floor is not None and (not isinstance(floor, int) or isinstance(floor, bool)):
        raise BadInput(f"{where}: min_authority must be an integer")
    return Rule(entity, attribute, tuple(writers), floor)
