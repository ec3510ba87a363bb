"""Bounds LLM spend: calls per rolling minute and tokens per UTC day, in this process.

Each process holds its own bound; with N classifier replicas the fleet may spend N times
the bound. Counts restart with the process, which can only lower the day's real spend
below what a restart forgot, never lose a memory.
"""

from __future__ import annotations

from collections import deque
from datetime import date, datetime, timedelta

from memhive_ports import Clock

MINUTE = timedelta(minutes=1)


class SpendGuard:
    def __init__(self, clock: Clock, *, calls_per_minute: int, tokens_per_day: int) -> None:
        if calls_per_minute < 1 or tokens_per_day < 1:
            raise ValueError("calls_per_minute and tokens_per_day must be at least 1")
        self._clock = clock
        self._calls_per_minute, self._tokens_per_day = calls_per_minute, tokens_per_day
        self._calls: deque[datetime] = deque()
        self._day: date | None = None
        self._tokens_today = 0

    def try_acquire(self, estimated_tokens: int) -> bool:
        """Reserve one call expected to spend about `estimated_tokens`; False: over a bound."""
        now = self._clock.now()
        self._roll(now)
        if len(self._calls) >= self._calls_per_minute:
            return False
        if self._tokens_today + estimated_tokens > self._tokens_per_day:
            return False
        self._calls.append(now)
        return True

    def record(self, tokens: int) -> None:
        """What a call really spent (also when its answer was unusable)."""
        self._roll(self._clock.now())
        self._tokens_today += max(tokens, 0)

    @property
    def tokens_today(self) -> int:
        return self._tokens_today

    def _roll(self, now: datetime) -> None:
        while self._calls and now - self._calls[0] >= MINUTE:
            self._calls.popleft()
        if now.date() != self._day:
            self._day, self._tokens_today = now.date(), 0
