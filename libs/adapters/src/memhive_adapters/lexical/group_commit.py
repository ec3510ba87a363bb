"""Commits in groups: writes queue up and one commit takes them all, once the group holds
`max_writes` or its oldest write is `interval_s` old (or on `flush`/`close`).

The commit runs in a worker thread, one at a time, and is given the writes in the order
they came. `durable()` hands out a future that completes when every write queued before
the call is committed, or fails with the commit's error (its writes stay queued and are
tried again a pause later): the caller acks only then, so a crash in between means a
redelivery, never a loss.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

Write = TypeVar("Write")


def completed() -> asyncio.Future[None]:
    """An awaitable that is already done: `persisted()` of an engine with nothing pending."""
    future = asyncio.get_running_loop().create_future()
    future.set_result(None)
    return future


class GroupCommits(Generic[Write]):
    """`commit(writes)` runs in a thread and makes them durable and visible to new readers;
    `committed(n)` then runs on the event loop with the number of the last write it held."""

    def __init__(
        self,
        commit: Callable[[Sequence[Write]], None],
        committed: Callable[[int], None],
        *,
        interval_s: float,
        max_writes: int,
    ) -> None:
        self._commit, self._committed = commit, committed
        self._interval_s, self._max_writes = interval_s, max(1, max_writes)
        self._queued: list[tuple[int, Write]] = []
        self._oldest_at = 0.0
        self._waiting: list[tuple[int, asyncio.Future[None]]] = []
        self._due = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    def add(self, sequence: int, write: Write) -> None:
        """Queue one write, numbered by the caller in increasing order."""
        loop = asyncio.get_running_loop()
        if not self._queued:
            self._oldest_at = loop.time()
        self._queued.append((sequence, write))
        if len(self._queued) in (1, self._max_writes):  # the timer starts, or the group is full
            self._due.set()
        if self._task is None:
            self._task = loop.create_task(self._run(), name="lexical-group-commits")

    def durable(self) -> asyncio.Future[None]:
        """Completes once every write queued so far is committed."""
        if not self._queued:
            return completed()
        future = asyncio.get_running_loop().create_future()
        self._waiting.append((self._queued[-1][0], future))
        return future

    async def flush(self) -> None:
        """Commit what is queued now, without waiting for the group to fill."""
        async with self._lock:
            await self._commit_queued()

    async def close(self) -> None:
        """Stop the timer and commit what is queued. A commit under way is let finish first:
        its thread cannot be stopped, and the writer is not to be used by two at once."""
        async with self._lock:
            task, self._task = self._task, None
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await self._commit_queued()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self._due.clear()
            if not self._queued:
                await self._due.wait()
                continue
            remaining = self._oldest_at + self._interval_s - loop.time()
            if remaining > 0 and len(self._queued) < self._max_writes:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._due.wait(), remaining)
                continue
            async with self._lock:
                failed = not await self._commit_queued()
            if failed:  # the writes stay queued: try again a pause later
                await asyncio.sleep(max(self._interval_s, 0.1))

    async def _commit_queued(self) -> bool:
        group, self._queued = self._queued, []
        if not group:
            return True
        try:
            await asyncio.to_thread(self._commit, [write for _, write in group])
        except Exception as exc:
            log.exception("lexical lane: a group commit of %d writes failed", len(group))
            self._queued = group + self._queued
            self._oldest_at = asyncio.get_running_loop().time()
            self._settle_waiting(group[-1][0], exc)
            return False
        self._committed(group[-1][0])
        self._settle_waiting(group[-1][0], None)
        return True

    def _settle_waiting(self, upto: int, error: Exception | None) -> None:
        still = []
        for sequence, future in self._waiting:
            if sequence > upto:
                still.append((sequence, future))
            elif not future.done():
                if error is None:
                    future.set_result(None)
                else:
                    future.set_exception(error)
        self._waiting = still
