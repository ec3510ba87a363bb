"""How much LLM spend the bulletin service may still make: calls per minute, tokens per day."""

from __future__ import annotations

from collections import deque
from datetime import datetime, timedelta

MINUTE = timedelta(minutes=1)


class SpendLimit:
    """Sliding one-minute window of calls; a token budget reset each UTC day. A zero limit
    allows nothing. Tokens are counted after a call, so one call may overshoot the day's
    budget once; the next call is then refused."""

    def __init__(self, calls_per_minute: int, tokens_per_day: int) -> None:
        self._calls_per_minute, self._tokens_per_day = calls_per_minute, tokens_per_day
        self._calls: deque[datetime] = deque()
        self._day: tuple[int, int, int] | None = None
        self._tokens_today = 0

    def allows(self, now: datetime) -> bool:
        self._forget_before(now)
        return (
            len(self._calls) < self._calls_per_minute
            and self._tokens_used(now) < self._tokens_per_day
        )

    def record(self, now: datetime, tokens: int) -> None:
        self._calls.append(now)
        self._tokens_today = self._tokens_used(now) + tokens
        self._day = _day(now)

    def _tokens_used(self, now: datetime) -> int:
        return self._tokens_today if self._day == _day(now) else 0

    def _forget_before(self, now: datetime) -> None:
        while self._calls and self._calls[0] <= now - MINUTE:
            self._calls.popleft()


def _day(moment: datetime) -> tuple[int, int, int]:
    return (moment.year, moment.month, moment.day)
