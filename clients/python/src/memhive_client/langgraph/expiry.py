"""LangGraph's TTLs (minutes, refreshed on reads) on memhive's expiries: a key/value entry's
`ttl_s` (whole seconds, 1 s .. 366 days) and a memory's `expires_at`. Pure functions, no I/O."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

MAX_TTL_MINUTES = 366 * 24 * 60  # memhive's bound on a key/value entry's ttl_s
# A read moves an item's expiry only once it would move by this share of its TTL: reading a
# hot item costs no write each time, and it expires at most this share of its TTL early.
REFRESH_STEP = 0.05


def ttl_seconds(minutes: float) -> int:
    """The entry's ttl_s for a LangGraph TTL; ValueError outside what memhive keeps."""
    if isinstance(minutes, bool) or not isinstance(minutes, int | float):
        raise ValueError(f"ttl must be a number of minutes, not {minutes!r}")
    if not 0 < minutes <= MAX_TTL_MINUTES:
        raise ValueError(f"ttl must be above 0 and at most {MAX_TTL_MINUTES} minutes (366 days)")
    return max(1, math.ceil(minutes * 60))


def expiry(minutes: float, now: datetime) -> datetime:
    """When an item written or refreshed `now` expires: the same instant for its entry and
    its memory, so a search by query never misses an item a get still returns."""
    return now + timedelta(seconds=ttl_seconds(minutes))


def refresh_due(minutes: float, expires_at: datetime | None, now: datetime) -> bool:
    if expires_at is None:  # written before it had a TTL: give it one
        return True
    return expiry(minutes, now) - expires_at >= timedelta(minutes=minutes * REFRESH_STEP)
