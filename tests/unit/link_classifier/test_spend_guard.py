from __future__ import annotations

from datetime import timedelta

import pytest
from memhive_application.spend_guard import SpendGuard

from tests.fakes import FixedClock


def guard(clock: FixedClock, calls: int = 2, tokens: int = 1000) -> SpendGuard:
    return SpendGuard(clock, calls_per_minute=calls, tokens_per_day=tokens)


def test_calls_per_minute_are_bounded_over_a_rolling_minute() -> None:
    clock = FixedClock()
    bound = guard(clock, calls=2)

    granted = [bound.try_acquire(10) for _ in range(3)]
    clock.current += timedelta(seconds=59)
    still_refused = bound.try_acquire(10)
    clock.current += timedelta(seconds=1)
    granted_again = bound.try_acquire(10)

    assert (granted, still_refused, granted_again) == ([True, True, False], False, True)


def test_tokens_per_day_count_what_was_spent_and_the_estimate_of_the_next_call() -> None:
    clock = FixedClock()
    bound = guard(clock, calls=100, tokens=1000)

    assert bound.try_acquire(400)
    bound.record(700)

    assert not bound.try_acquire(400)  # 700 + 400 > 1000
    assert bound.try_acquire(300)
    assert bound.tokens_today == 700


def test_a_new_utc_day_starts_a_new_token_budget() -> None:
    clock = FixedClock()
    bound = guard(clock, calls=100, tokens=1000)
    bound.record(1000)
    assert not bound.try_acquire(1)

    clock.current += timedelta(days=1)

    assert bound.try_acquire(1)
    assert bound.tokens_today == 0


def test_bounds_must_allow_at_least_one_call() -> None:
    with pytest.raises(ValueError):
        SpendGuard(FixedClock(), calls_per_minute=0, tokens_per_day=10)
