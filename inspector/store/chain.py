"""The hash chain of the event log (DESIGN §2.1): canonical JSON, body digests, line hashes."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from .jsonsafe import dumps_canonical

GENESIS = "0" * 64
ENVELOPE_FIELDS = ("seq", "at", "actor", "op", "memory_id", "batch", "body_digest", "prev")


def canonical(value: Any) -> bytes:
    """The one byte form every digest is taken over (any depth; see jsonsafe)."""
    return dumps_canonical(value)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def body_digest(body: dict) -> str:
    return sha256_hex(canonical(body))


def line_hash(event: dict) -> str:
    """hash = SHA-256(prev + "\\n" + canonical(the line without `hash` and `body`))."""
    header = {k: v for k, v in event.items() if k not in ("hash", "body")}
    return sha256_hex(event["prev"].encode("utf-8") + b"\n" + canonical(header))


def new_salt() -> str:
    return secrets.token_hex(16)


def seal(event: dict, prev: str) -> dict:
    """Fill in body_digest, prev and hash of an event whose body is final."""
    event["body_digest"] = body_digest(event["body"])
    event["prev"] = prev
    event["hash"] = line_hash(event)
    return event


def seal_after(drafts: list[dict], seq: int, prev: str, at: str) -> list[dict]:
    """The one sealing of new lines (the writer, the staged what-if and erasure): each draft
    becomes the event after (seq, prev), numbered on, dated `at` unless it carries its own
    time, and chained to the one before it."""
    events = []
    for draft in drafts:
        seq += 1
        event = seal({**draft, "seq": seq, "at": draft.get("at") or at}, prev)
        prev = event["hash"]
        events.append(event)
    return events


def line_bytes(event: dict) -> bytes:
    """One log line, newline-terminated, in canonical key order."""
    return canonical(event) + b"\n"
