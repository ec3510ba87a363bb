"""Identifiers: time-ordered UUIDv7 (RFC 9562), so ids sort by creation, and reading one."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import datetime

from memhive_domain.errors import NotFound


def uuid7(unix_ms: int, random_bits: int | None = None) -> str:
    rand = secrets.randbits(74) if random_bits is None else random_bits
    value = (unix_ms & (2**48 - 1)) << 80
    value |= 0x7 << 76  # version
    value |= (rand >> 62) << 64  # rand_a, 12 bits
    value |= 0b10 << 62  # variant
    value |= rand & (2**62 - 1)  # rand_b
    return str(uuid.UUID(int=value))


def content_id(
    workspace_id: str,
    scope_key: str,
    body: str,
    attempt: int = 0,
    occurred_at: datetime | None = None,
) -> str:
    """The id a memory with this normalised body gets in this scope (UUIDv8 of a SHA-256);
    a memory that says when it happened is another occurrence at another time.

    Identical saves racing each other compute the same id, so the record's create-if-absent
    keeps exactly one. `attempt` moves to the next id when the earlier one belongs to a
    memory that was forgotten or expired (the record keeps those for history).
    """
    parts = ["memhive-content-v1", workspace_id, scope_key, body, str(attempt)]
    if occurred_at is not None:  # appended only when given: older ids stay what they were
        parts.append(occurred_at.isoformat())
    key = "\0".join(parts)
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
    value = int.from_bytes(digest[:16], "big")
    value &= ~(0xF << 76) & ~(0b11 << 62)
    value |= 0x8 << 76  # version 8: custom
    value |= 0b10 << 62  # variant
    return str(uuid.UUID(int=value))


def memory_id_or_not_found(memory_id: object) -> str:
    """The canonical form of a memory id; one that is not a UUID names no memory."""
    try:
        return str(uuid.UUID(str(memory_id)))
    except ValueError:
        raise NotFound("memory", str(memory_id)) from None


def is_memory_id(value: str) -> bool:
    """A memory id in its canonical form (lowercase UUID with hyphens)."""
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False
