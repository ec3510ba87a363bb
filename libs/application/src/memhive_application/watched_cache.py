"""A cache of reads from a store that changes rarely (tokens, products), dropped whole on
every change the store's watch reports, on every replica at once.

A read that was in flight when a change arrived may have read too late to see it: its
answer is used once and not kept. Should the watch fail (the bus refuses it, a connection
drops), it is opened again every WATCH_RETRY_S and entries still expire after `ttl_s`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from typing import Generic, TypeVar

WATCH_RETRY_S = 1.0
WATCH_START_TIMEOUT_S = 5.0
STOP_RETRY_S = 0.5  # how long stop() waits for the watch to end before cancelling again

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

log = logging.getLogger(__name__)


class WatchedCache(Generic[K, V]):
    """`changes()`: subscribed when it returns; yields something for every change made
    afterwards. `ttl_s` 0 keeps nothing (every read goes to the store)."""

    def __init__(
        self,
        changes: Callable[[], Awaitable[AsyncIterator[object]]],
        *,
        ttl_s: float,
        max_entries: int,
        name: str,
    ) -> None:
        self._changes, self._ttl, self._max, self._name = changes, ttl_s, max_entries, name
        self._entries: dict[K, tuple[float, V]] = {}
        self._changes_seen = 0
        self._watch: asyncio.Task | None = None
        self._watching = asyncio.Event()

    async def start(self) -> None:
        """Follows the changes; returns once the watch is in place (or, if the bus refuses
        it, after WATCH_START_TIMEOUT_S: reads still work, entries live out their TTL)."""
        self._watch = asyncio.create_task(self._follow(), name=f"{self._name}-watch")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._watching.wait(), WATCH_START_TIMEOUT_S)

    async def stop(self) -> None:
        """Cancels the watch until it has ended: Python 3.11's asyncio.wait_for (inside
        nats-py's `KeyWatcher.updates`) drops a cancellation that arrives in the same tick
        as an update, and the watch would then wait up to an hour for the next one (a test
        teardown hung on it once, right after a revoke)."""
        task, self._watch = self._watch, None
        while task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=STOP_RETRY_S)
        if task is not None and not task.cancelled():
            task.exception()  # retrieved: an error it ended with is not logged as lost

    def forget(self) -> None:
        self._changes_seen += 1
        self._entries.clear()

    async def get(
        self, key: K, read: Callable[[], Awaitable[V]], keep: Callable[[V], bool] | None = None
    ) -> V:
        """The value cached under `key`, else what `read()` gives, kept unless
        `keep(value)` is false."""
        cached = self._entries.get(key)
        if cached and cached[0] > time.monotonic():
            return cached[1]
        changes_before = self._changes_seen
        value = await read()
        kept = keep is None or keep(value)
        if self._ttl <= 0 or not kept or self._changes_seen != changes_before:
            return value
        if len(self._entries) >= self._max:
            self._entries.clear()
        self._entries[key] = (time.monotonic() + self._ttl, value)
        return value

    async def _follow(self) -> None:
        # Changes are rare: any change drops every entry (simpler than mapping changes to
        # keys, and the next read of each key pays one store read).
        while True:
            try:
                changes = await self._changes()
                self.forget()  # anything may have changed while not watching
                self._watching.set()
                async for _ in changes:
                    self.forget()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("%s watch failed (%r); entries fall back to their TTL", self._name, exc)
            await asyncio.sleep(WATCH_RETRY_S)
