from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memhive_bulletin.spend_limit import SpendLimit

T0 = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)


def test_calls_per_minute_slide() -> None:
    limit = SpendLimit(calls_per_minute=2, tokens_per_day=10_000)
    limit.record(T0, 10)
    limit.record(T0 + timedelta(seconds=30), 10)
    assert not limit.allows(T0 + timedelta(seconds=59))
    assert limit.allows(T0 + timedelta(seconds=60))


def test_tokens_per_day_reset_at_midnight_utc() -> None:
    limit = SpendLimit(calls_per_minute=100, tokens_per_day=1000)
    limit.record(T0, 1200)
    assert not limit.allows(T0 + timedelta(seconds=30))
    assert limit.allows(T0 + timedelta(seconds=61))  # the next UTC day


def test_zero_limits_allow_nothing() -> None:
    assert not SpendLimit(0, 1000).allows(T0)
    assert not SpendLimit(5, 0).allows(T0)
