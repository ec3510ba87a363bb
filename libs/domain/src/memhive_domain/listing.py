"""Paging through a listing by keyset: where the previous page ended, not how many came before.

A listing is ordered newest first by (created_at, id). A page ends at a `ListPosition`, and the
next page starts strictly after it, so no offset ever reaches an engine (an offset of 10^10
once made tantivy allocate hundreds of gigabytes) and pages stay stable while memories are
saved or forgotten. The cursor a caller holds is that position, encoded; anything that does not
decode to a valid position is refused naming `cursor`. A forged but valid cursor can only move
the start of the caller's own listing: the filter still decides what is visible.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from memhive_domain.errors import FieldProblem, InvalidInput

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MIN_US = (datetime.min.replace(tzinfo=UTC) - _EPOCH) // timedelta(microseconds=1)
_MAX_US = (datetime.max.replace(tzinfo=UTC) - _EPOCH) // timedelta(microseconds=1)
_PREFIX = "k1."
MAX_CURSOR_CHARS = 96
_CURSOR = re.compile(r"^k1\.[A-Za-z0-9_-]{1,93}$")


@dataclass(frozen=True, slots=True)
class ListPosition:
    """One memory's place in a listing: newer created_at first, then the larger id first."""

    created_at: datetime
    memory_id: str

    @property
    def created_us(self) -> int:
        """Microseconds since the epoch: exact, what engines sort on."""
        return (self.created_at - _EPOCH) // timedelta(microseconds=1)

    @classmethod
    def at(cls, created_us: int, memory_id: str) -> ListPosition:
        return cls(_EPOCH + timedelta(microseconds=created_us), memory_id)

    def is_after(self, created_us: int, memory_id: str) -> bool:
        """True when (created_us, memory_id) comes later in the listing than this position."""
        return (created_us, memory_id) < (self.created_us, self.memory_id)


def encode_cursor(position: ListPosition) -> str:
    raw = f"{position.created_us}:{position.memory_id}".encode()
    return _PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> ListPosition | None:
    """None for no cursor; InvalidInput naming `cursor` for anything this API did not issue."""
    if cursor is None or cursor == "":
        return None
    refused = InvalidInput([FieldProblem("cursor", "is not a cursor this API returned")])
    if not isinstance(cursor, str) or not _CURSOR.match(cursor):
        raise refused
    payload = cursor[len(_PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode("ascii")
        created, _, memory_id = raw.partition(":")
        created_us = int(created)
        canonical_id = str(uuid.UUID(memory_id))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise refused from None
    if not _MIN_US <= created_us <= _MAX_US or canonical_id != memory_id:
        raise refused
    return ListPosition.at(created_us, memory_id)
