"""The gateway's authenticator over a fake token directory: caching, expiry on every
request, and the cache dropped when the directory reports a change."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from memhive_application.authentication import Authenticator, Unauthenticated
from memhive_domain.principals import Principal, Role
from memhive_domain.tokens import TokenRecord

from tests.fakes import FakeTokenDirectory, FixedClock

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def record(expires_at: datetime | None = None) -> TokenRecord:
    return TokenRecord("0123456789abcdef", "ws", "bot", Role.AGENT, expires_at=expires_at)


async def test_a_token_is_looked_up_once_then_served_from_the_cache() -> None:
    directory = FakeTokenDirectory()
    directory.records["t"] = record()
    auth = Authenticator(directory, FixedClock(NOW))

    first = await auth.principal_for("Bearer t")
    second = await auth.principal_for("bearer t")

    assert first == second == Principal("ws", "bot", Role.AGENT)
    assert first.credential == "token:0123456789abcdef"
    assert directory.lookups == 1


async def test_expiry_is_checked_on_every_request_even_when_cached() -> None:
    directory, clock = FakeTokenDirectory(), FixedClock(NOW)
    directory.records["t"] = record(expires_at=NOW + timedelta(minutes=1))
    auth = Authenticator(directory, clock)
    await auth.principal_for("Bearer t")

    clock.advance(60)

    with pytest.raises(Unauthenticated, match="expired"):
        await auth.principal_for("Bearer t")
    assert directory.lookups == 1


async def test_a_change_in_the_directory_drops_the_cache() -> None:
    directory = FakeTokenDirectory()
    directory.records["t"] = record()
    auth = Authenticator(directory, FixedClock(NOW))
    await auth.start()
    try:
        await auth.principal_for("Bearer t")
        await directory.revoke(record().id)
        for _ in range(200):  # the watch task runs on the next loop turns
            await asyncio.sleep(0.005)
            try:
                await auth.principal_for("Bearer t")
            except Unauthenticated:
                break
        else:
            pytest.fail("the revoked token was still accepted")
    finally:
        await auth.stop()


@pytest.mark.parametrize("header", [None, "", "Bearer ", "Basic dXNlcg==", "t"])
async def test_a_missing_bearer_is_refused(header: str | None) -> None:
    with pytest.raises(Unauthenticated, match="missing bearer"):
        await Authenticator(FakeTokenDirectory(), FixedClock(NOW)).principal_for(header)


async def test_an_unknown_token_is_refused() -> None:
    with pytest.raises(Unauthenticated, match="unknown token"):
        await Authenticator(FakeTokenDirectory(), FixedClock(NOW)).principal_for("Bearer nope")


class BrokenWatch(FakeTokenDirectory):
    async def changes(self) -> AsyncIterator[str]:
        raise PermissionError("the bus refused the watch")


async def test_a_refused_watch_does_not_stop_the_gateway(monkeypatch) -> None:
    monkeypatch.setattr("memhive_application.watched_cache.WATCH_START_TIMEOUT_S", 0.05)
    directory = BrokenWatch()
    directory.records["t"] = record()
    auth = Authenticator(directory, FixedClock(NOW))

    await asyncio.wait_for(auth.start(), 5)
    try:
        assert (await auth.principal_for("Bearer t")).user_id == "bot"
    finally:
        await auth.stop()


class SlowLookups(FakeTokenDirectory):
    """Each lookup reads the directory at once but answers only when released: a KV read
    that was in flight while the token was revoked."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.release = asyncio.Event(), asyncio.Event()

    async def lookup(self, token: str) -> TokenRecord | None:
        found = await super().lookup(token)
        self.started.set()
        await self.release.wait()
        return found


async def test_a_lookup_that_raced_a_revocation_is_not_cached() -> None:
    """Otherwise the revoked token's record, read just before the revocation, would be cached
    after the watch dropped the cache, and accepted for the cache's whole TTL."""
    directory = SlowLookups()
    directory.records["t"] = record()
    auth = Authenticator(directory, FixedClock(NOW))
    await auth.start()
    try:
        in_flight = asyncio.create_task(auth.principal_for("Bearer t"))
        await directory.started.wait()
        await directory.revoke(record().id)
        for _ in range(20):  # the watch task sees the change on the next loop turns
            await asyncio.sleep(0)
        directory.release.set()
        assert (await in_flight).user_id == "bot"  # it was read before the revocation

        with pytest.raises(Unauthenticated, match="unknown token"):
            await auth.principal_for("Bearer t")
    finally:
        await auth.stop()


class SwallowsOneCancellation(FakeTokenDirectory):
    """A change watch that loses the first cancellation it gets, as Python 3.11's
    asyncio.wait_for does (inside nats-py's KeyWatcher.updates) when an update arrives in
    the same tick, then waits for the next change."""

    ended = False

    async def changes(self) -> AsyncIterator[str]:
        async def stream() -> AsyncIterator[str]:
            swallowed = False
            try:
                while True:
                    try:
                        await asyncio.Event().wait()
                    except asyncio.CancelledError:
                        if swallowed:
                            raise
                        swallowed = True
                yield ""  # pragma: no cover - makes this an async generator
            finally:
                self.ended = True

        return stream()


async def test_stop_ends_the_watch_even_when_a_cancellation_is_lost() -> None:
    """A lost cancellation made stop() wait for the next token change (up to an hour)."""
    directory = SwallowsOneCancellation()
    auth = Authenticator(directory, FixedClock(NOW))
    await auth.start()
    stopping = asyncio.create_task(auth.stop())
    done, _ = await asyncio.wait({stopping}, timeout=5)
    assert done and directory.ended
