"""WatchedCache: reads kept for their TTL, all dropped on a change the watch reports, a read
that overlapped a change used once, and a watch that fails leaving the TTL as the bound."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from memhive_application.watched_cache import WatchedCache

from tests.fakes import ChangeFeed


class Store:
    """Values by key, counting reads; `change` reports a change on every open watch."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {"a": "one"}
        self.reads = 0
        self.release: asyncio.Event | None = None  # set: reads wait for it
        self.read_started = asyncio.Event()
        self._feed = ChangeFeed()

    async def read(self, key: str) -> str | None:
        self.reads += 1
        found = self.values.get(key)
        self.read_started.set()
        if self.release is not None:
            await self.release.wait()
        return found

    async def changes(self) -> AsyncIterator[str]:
        return await self._feed.changes()

    async def change(self, key: str, value: str) -> None:
        self.values[key] = value
        self._feed.tell(key)
        for _ in range(5):  # the watch task takes it on the next loop turns
            await asyncio.sleep(0)


def cache_of(store: Store, ttl_s: float = 30.0, max_entries: int = 100) -> WatchedCache:
    return WatchedCache(store.changes, ttl_s=ttl_s, max_entries=max_entries, name="test")


async def test_a_value_is_read_once_then_served_until_a_change() -> None:
    store = Store()
    cache = cache_of(store)
    await cache.start()
    try:
        assert [await cache.get("a", lambda: store.read("a")) for _ in range(3)] == ["one"] * 3
        assert store.reads == 1
        await store.change("a", "two")
        assert await cache.get("a", lambda: store.read("a")) == "two"
        assert store.reads == 2
    finally:
        await cache.stop()


async def test_an_absent_value_is_kept_unless_told_not_to() -> None:
    store = Store()
    cache = cache_of(store)
    await cache.start()
    try:
        for _ in range(2):
            assert await cache.get("b", lambda: store.read("b")) is None
        assert store.reads == 1
        for _ in range(2):
            await cache.get("c", lambda: store.read("c"), keep=lambda v: v is not None)
        assert store.reads == 3
    finally:
        await cache.stop()


async def test_a_read_that_overlapped_a_change_is_used_once_not_kept() -> None:
    store = Store()
    store.release = asyncio.Event()
    cache = cache_of(store)
    await cache.start()
    try:
        in_flight = asyncio.create_task(cache.get("a", lambda: store.read("a")))
        await store.read_started.wait()
        await store.change("a", "two")  # the read had already read "one"
        store.release.set()
        assert await in_flight == "one"
        assert await cache.get("a", lambda: store.read("a")) == "two"
    finally:
        await cache.stop()


async def test_entries_expire_and_a_zero_ttl_keeps_nothing(monkeypatch) -> None:
    store = Store()
    now = [1000.0]
    monkeypatch.setattr("memhive_application.watched_cache.time.monotonic", lambda: now[0])
    cache = cache_of(store, ttl_s=30)
    await cache.get("a", lambda: store.read("a"))
    now[0] += 29
    await cache.get("a", lambda: store.read("a"))
    assert store.reads == 1
    now[0] += 2
    await cache.get("a", lambda: store.read("a"))
    assert store.reads == 2

    uncached = cache_of(store, ttl_s=0)
    for _ in range(2):
        await uncached.get("a", lambda: store.read("a"))
    assert store.reads == 4


async def test_a_full_cache_starts_over_rather_than_grow() -> None:
    store = Store()
    cache = cache_of(store, max_entries=2)
    for key in ("a", "b", "c"):  # the third clears the first two
        await cache.get(key, lambda k=key: store.read(k))
    await cache.get("a", lambda: store.read("a"))
    await cache.get("c", lambda: store.read("c"))
    assert store.reads == 4  # "a" read again, "c" still kept


class RefusedWatch(Store):
    def __init__(self) -> None:
        super().__init__()
        self.attempts = 0

    async def changes(self) -> AsyncIterator[str]:
        self.attempts += 1
        raise PermissionError("the bus refused the watch")


async def test_a_refused_watch_leaves_reads_working_and_is_tried_again(monkeypatch) -> None:
    monkeypatch.setattr("memhive_application.watched_cache.WATCH_START_TIMEOUT_S", 0.05)
    monkeypatch.setattr("memhive_application.watched_cache.WATCH_RETRY_S", 0.01)
    store = RefusedWatch()
    cache = cache_of(store)
    await asyncio.wait_for(cache.start(), 5)
    try:
        assert await cache.get("a", lambda: store.read("a")) == "one"
        for _ in range(500):
            if store.attempts >= 3:
                break
            await asyncio.sleep(0.01)
        assert store.attempts >= 3
    finally:
        await cache.stop()


@pytest.mark.parametrize("started", [True, False])
async def test_stop_ends_the_watch_whether_or_not_it_started(started: bool) -> None:
    store = Store()
    cache = cache_of(store)
    if started:
        await cache.start()
    await asyncio.wait_for(cache.stop(), 5)
