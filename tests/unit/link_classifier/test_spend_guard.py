from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from memhive_application.spend_guard import LocalSpendCounters, SpendGuard
from memhive_domain.spend import day_window, minute_window

from tests.fakes import FixedClock


def guard(clock: FixedClock, calls: int = 2, tokens: int = 1000, counters=None) -> SpendGuard:
    return SpendGuard(clock, calls_per_minute=calls, tokens_per_day=tokens, counters=counters)


async def test_calls_are_bounded_per_utc_minute() -> None:
    clock = FixedClock(datetime(2026, 11, 24, 1, 2, 0, tzinfo=UTC))
    bound = guard(clock, calls=2)

    granted = [await bound.try_acquire(10) for _ in range(3)]
    clock.current += timedelta(seconds=59)
    still_refused = await bound.try_acquire(10)
    clock.current += timedelta(seconds=1)
    granted_again = await bound.try_acquire(10)

    assert (granted, still_refused, granted_again) == ([True, True, False], False, True)


async def test_tokens_per_day_count_what_was_spent_and_the_estimate_of_the_next_call() -> None:
    clock = FixedClock()
    bound = guard(clock, calls=100, tokens=1000)

    assert await bound.try_acquire(400)
    await bound.record(700)

    assert not await bound.try_acquire(400)  # 700 + 400 > 1000
    assert await bound.try_acquire(300)
    assert await bound.tokens_today() == 700


async def test_a_new_utc_day_starts_a_new_token_budget() -> None:
    clock = FixedClock()
    bound = guard(clock, calls=100, tokens=1000)
    await bound.record(1000)
    assert not await bound.try_acquire(1)

    clock.current += timedelta(days=1)

    assert await bound.try_acquire(1)
    assert await bound.tokens_today() == 0


async def test_guards_over_the_same_counters_share_one_bound() -> None:
    clock, counters = FixedClock(), LocalSpendCounters()
    replicas = [guard(clock, calls=3, counters=counters) for _ in range(3)]

    granted = [await r.try_acquire(1) for r in replicas for _ in range(2)]

    assert granted.count(True) == 3


async def test_consumers_keep_bounds_of_their_own() -> None:
    clock, counters = FixedClock(), LocalSpendCounters()
    classifier = SpendGuard(
        clock, calls_per_minute=1, tokens_per_day=10, counters=counters, consumer="a"
    )
    bulletin = SpendGuard(
        clock, calls_per_minute=1, tokens_per_day=10, counters=counters, consumer="b"
    )

    assert [await classifier.try_acquire(1), await bulletin.try_acquire(1)] == [True, True]


class Unreachable:
    async def add_within(self, key: str, amount: int, bound: int) -> bool:
        raise ConnectionError("bus down")

    async def add(self, key: str, amount: int) -> None:
        raise ConnectionError("bus down")

    async def total(self, key: str) -> int:
        raise ConnectionError("bus down")


async def test_unreachable_counters_refuse_the_call_and_lose_only_the_count() -> None:
    bound = guard(FixedClock(), counters=Unreachable())

    assert not await bound.try_acquire(1)
    await bound.record(10)  # logged, not raised: the call was already made


def test_windows_are_named_in_utc() -> None:
    moment = datetime(2026, 11, 24, 1, 2, 3, tzinfo=UTC)
    elsewhere = moment.astimezone(timezone(timedelta(hours=-5)))
    assert minute_window(elsewhere) == minute_window(moment) == "m202611240102"
    assert day_window(elsewhere) == "d20261124"


def test_bounds_must_allow_at_least_one_call() -> None:
    with pytest.raises(ValueError):
        SpendGuard(FixedClock(), calls_per_minute=0, tokens_per_day=10)
