"""Spend windows: LLM calls are counted per UTC minute and tokens per UTC day.

Fixed windows named from the clock, rather than a rolling minute, so every replica names the
same window for the same moment and they can share one counter per window (a rolling minute
would need every call's timestamp in one place). A fixed window lets a burst straddle two
windows (up to twice the bound in any 60 s); the bound per window holds exactly.
"""

from __future__ import annotations

from datetime import UTC, datetime


def minute_window(now: datetime) -> str:
    return now.astimezone(UTC).strftime("m%Y%m%d%H%M")


def day_window(now: datetime) -> str:
    return now.astimezone(UTC).strftime("d%Y%m%d")


def within_bound(spent: int, more: int, bound: int) -> bool:
    """Whether spending `more` on top of `spent` stays within `bound`."""
    return spent + more <= bound
