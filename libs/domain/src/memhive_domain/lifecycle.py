"""When an expired memory leaves the record for good.

An expired memory is hidden at once (every read checks expiry) but kept for audits
(`include_expired`) for a retention period; then it is purged: its record and the record's
history go, and the lanes drop it. Nothing scans for due memories: the purge is scheduled
when the memory is written with an expiry, and re-checked here when it falls due.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from memhive_domain.memory import Memory


def purge_due(memory: Memory, retention: timedelta) -> datetime | None:
    """When the memory may be purged: its expiry plus the retention; None without expiry, or
    when that lies past the calendar (an expiry at the end of year 9999: never purged)."""
    if memory.expires_at is None:
        return None
    try:
        return memory.expires_at + retention
    except OverflowError:
        return None


def is_purgeable(memory: Memory, now: datetime, retention: timedelta) -> bool:
    """Whether a purge falling due now applies: the record may have changed since it was
    scheduled (expiry moved or removed), and then it does not."""
    due = purge_due(memory, retention)
    return due is not None and due <= now
