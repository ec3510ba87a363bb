"""Bounds LLM spend: calls per UTC minute and tokens per UTC day, per consumer.

The counters decide how far the bound reaches: `LocalSpendCounters` bound one process;
the KV counters (`memhive_adapters.nats.kv_spend_counters`) bound every replica of the
consumer together. A counter that cannot be reached refuses the call (the caller falls back
to its no-LLM path), so an outage can only lower spend, never lose a memory.
"""

from __future__ import annotations

import logging
from collections import OrderedDict

from memhive_domain.spend import day_window, minute_window, within_bound
from memhive_ports import Clock
from memhive_ports.spend import SpendCounters

log = logging.getLogger(__name__)

# Windows a process keeps counting in memory: the current minute and day, and a few behind.
_LOCAL_WINDOWS = 8


class LocalSpendCounters:
    """SpendCounters of this process alone."""

    def __init__(self) -> None:
        self._totals: OrderedDict[str, int] = OrderedDict()

    async def add_within(self, key: str, amount: int, bound: int) -> bool:
        if not within_bound(self._totals.get(key, 0), amount, bound):
            return False
        await self.add(key, amount)
        return True

    async def add(self, key: str, amount: int) -> None:
        self._totals[key] = self._totals.get(key, 0) + amount
        self._totals.move_to_end(key)
        while len(self._totals) > _LOCAL_WINDOWS:
            self._totals.popitem(last=False)

    async def total(self, key: str) -> int:
        return self._totals.get(key, 0)


class SpendGuard:
    def __init__(
        self,
        clock: Clock,
        *,
        calls_per_minute: int,
        tokens_per_day: int,
        counters: SpendCounters | None = None,
        consumer: str = "llm",
    ) -> None:
        if calls_per_minute < 1 or tokens_per_day < 1:
            raise ValueError("calls_per_minute and tokens_per_day must be at least 1")
        self._clock, self._consumer = clock, consumer
        self._counters = counters if counters is not None else LocalSpendCounters()
        self._calls_per_minute, self._tokens_per_day = calls_per_minute, tokens_per_day

    async def try_acquire(self, estimated_tokens: int) -> bool:
        """Reserve one call expected to spend about `estimated_tokens`; False: over a bound."""
        now = self._clock.now()
        try:
            spent = await self._counters.total(self._key(day_window(now)))
            if not within_bound(spent, estimated_tokens, self._tokens_per_day):
                return False
            minute = self._key(minute_window(now))
            return await self._counters.add_within(minute, 1, self._calls_per_minute)
        except Exception:
            log.warning("spend counters unreachable: LLM call refused", exc_info=True)
            return False

    async def record(self, tokens: int) -> None:
        """What a call really spent (also when its answer was unusable)."""
        try:
            await self._counters.add(self._key(day_window(self._clock.now())), max(tokens, 0))
        except Exception:  # the call is made; losing its count only under-reports the day
            log.warning("spend counters unreachable: %d tokens not counted", tokens, exc_info=True)

    async def tokens_today(self) -> int:
        return await self._counters.total(self._key(day_window(self._clock.now())))

    def _key(self, window: str) -> str:
        return f"{self._consumer}.{window}"
