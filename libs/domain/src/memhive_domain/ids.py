"""Identifiers: time-ordered UUIDv7 (RFC 9562), so ids sort by creation, and reading one."""

from __future__ import annotations

import secrets
import uuid

from memhive_domain.errors import NotFound


def uuid7(unix_ms: int, random_bits: int | None = None) -> str:
    rand = secrets.randbits(74) if random_bits is None else random_bits
    value = (unix_ms & (2**48 - 1)) << 80
    value |= 0x7 << 76  # version
    value |= (rand >> 62) << 64  # rand_a, 12 bits
    value |= 0b10 << 62  # variant
    value |= rand & (2**62 - 1)  # rand_b
    return str(uuid.UUID(int=value))


def memory_id_or_not_found(memory_id: object) -> str:
    """The canonical form of a memory id; one that is not a UUID names no memory."""
    try:
        return str(uuid.UUID(str(memory_id)))
    except ValueError:
        raise NotFound("memory", str(memory_id)) from None
