"""Read-your-writes: let a request wait until the bus announces what happened to its memory.

One core-NATS subscription per gateway sees every memory event; a waiter is registered
before the command is published, so an event can never slip past unseen. `expect` waits
for one event; `follow` (or the block `following`) keeps every event of a memory's stage
until cancelled, for a write that must wait past events of other writes in flight
(`settling_event`): events can arrive back to back, before a one-shot waiter could be
registered again.

A wait ends early when the bus stalls: no event can come, and the command is durable
already, so the caller is answered "accepted" at once rather than after the whole wait.
The stall itself ends every wait (`BusStalls.on_stall`), so a wait is its future under a
timeout, with no task beside it watching for a stall (a save waits once).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Protocol, TypeVar

from memhive.v1 import edges_pb2, events_pb2
from memhive_contracts import subjects
from memhive_contracts.codec import UndecodableMessage, decode
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

# The event that completes each stage of a write, by subject prefix.
EVENTS = {
    subjects.MEMORY_SAVED: ("persisted", events_pb2.MemorySaved),
    subjects.MEMORY_FORGOTTEN: ("persisted", events_pb2.MemoryForgotten),
    subjects.MEMORY_INDEXED: ("indexed", events_pb2.MemoryIndexed),
    subjects.MEMORY_UNINDEXED: ("indexed", events_pb2.MemoryUnindexed),
    # A link touches two memories: its waiter is keyed on the command id instead.
    subjects.MEMORIES_LINKED: ("linked", edges_pb2.MemoriesLinked),
}


T = TypeVar("T")
STALLED = None  # what a wait the stall ended holds


class BusStalls(Protocol):
    """Whether the bus is stalled now, and a call each time it becomes so (BusLiveness)."""

    @property
    def stalled(self) -> bool: ...

    def on_stall(self, callback: Callable[[], None]) -> None: ...


class EventWaiter:
    def __init__(self, nc: NatsClient, stalls: BusStalls | None = None) -> None:
        self._nc, self._stalls = nc, stalls
        self._waiting: dict[tuple[str, str], list[asyncio.Future]] = defaultdict(list)
        self._following: dict[tuple[str, str], list[asyncio.Queue]] = defaultdict(list)
        self._key_of: dict[int, tuple[str, str]] = {}
        self._subscription = None
        if stalls is not None:
            stalls.on_stall(self._end_every_wait)

    async def start(self) -> None:
        self._subscription = await self._nc.subscribe(subjects.ALL_MEMORY_EVENTS, cb=self._on_event)

    async def stop(self) -> None:
        if self._subscription is not None:
            await self._subscription.unsubscribe()

    def expect(self, memory_id: str, stage: str) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        self._waiting[(memory_id, stage)].append(future)
        self._key_of[id(future)] = (memory_id, stage)
        return future

    def follow(self, memory_id: str, stage: str) -> asyncio.Queue:
        """Every event on `memory_id` at `stage` from now on, until `cancel`."""
        queue: asyncio.Queue = asyncio.Queue()
        self._following[(memory_id, stage)].append(queue)
        self._key_of[id(queue)] = (memory_id, stage)
        return queue

    async def next_event(self, following: asyncio.Queue, timeout_s: float):
        """The next event `following` received, or None when none comes in time."""
        return await self._within(following.get(), timeout_s)

    async def wait(self, future: asyncio.Future, timeout_s: float) -> bool:
        """True when the stage was reached in time; the caller answers 'accepted' otherwise."""
        return await self.event(future, timeout_s) is not None

    async def event(self, future: asyncio.Future, timeout_s: float):
        """The event that completed the stage, or None when none came in time."""
        try:
            return await self._within(future, timeout_s)
        finally:
            self._discard(future)

    async def _within(self, awaited: Awaitable[T], timeout_s: float) -> T | None:
        """What `awaited` gives, or None past `timeout_s` or once the bus stalls."""
        if self._stalls is not None and self._stalls.stalled:
            if asyncio.iscoroutine(awaited):
                awaited.close()
            return STALLED
        try:
            async with asyncio.timeout(timeout_s):
                return await awaited
        except TimeoutError:
            return None

    def _end_every_wait(self) -> None:
        """The bus stalled: no event will come, so every wait ends now, holding None."""
        waiting, self._waiting = self._waiting, defaultdict(list)
        for futures in waiting.values():
            for future in futures:
                if not future.done():
                    future.set_result(STALLED)
        for queues in self._following.values():
            for queue in queues:
                queue.put_nowait(STALLED)

    def cancel(self, waiting: asyncio.Future | asyncio.Queue) -> None:
        """Stop waiting on a future that will not be awaited, or stop following."""
        self._discard(waiting)

    @contextlib.contextmanager
    def following(self, memory_id: str, stage: str) -> Iterator[asyncio.Queue]:
        """`follow` for the length of the block, a failed publish inside it included."""
        queue = self.follow(memory_id, stage)
        try:
            yield queue
        finally:
            self.cancel(queue)

    async def _on_event(self, msg: Msg) -> None:
        prefix = msg.subject.rsplit(".", 1)[0]
        if prefix not in EVENTS and prefix != subjects.MEMORIES_INDEXED:
            return
        try:
            if prefix == subjects.MEMORIES_INDEXED:  # each memory's own MemoryIndexed
                together = decode(msg.data, events_pb2.MemoriesIndexed).indexed
                for event in together:
                    self._reached(event, "indexed")
                return
            stage, event_type = EVENTS[prefix]
            event = decode(msg.data, event_type)
        except UndecodableMessage:
            return  # not ours to judge: the consumers dead-letter it
        self._reached(event, stage)

    def _reached(self, event, stage: str) -> None:
        key = (_waited_on(event), stage)
        for future in self._waiting.pop(key, []):
            if not future.done():
                future.set_result(event)
        for queue in self._following.get(key, []):
            queue.put_nowait(event)

    def _discard(self, waiting: asyncio.Future | asyncio.Queue) -> None:
        key = self._key_of.pop(id(waiting), None)
        registry = self._following if isinstance(waiting, asyncio.Queue) else self._waiting
        held = registry.get(key, [])
        if waiting in held:
            held.remove(waiting)
        if key in registry and not held:
            del registry[key]


def following_unless_accepted(
    waiter: EventWaiter, memory_id: str, wait: str
) -> contextlib.AbstractContextManager[asyncio.Queue | None]:
    """The block follows `memory_id` at stage `wait`; for "accepted" there is nothing to
    wait for, and it holds None."""
    return contextlib.nullcontext() if wait == "accepted" else waiter.following(memory_id, wait)


async def settling_event(
    waiter: EventWaiter,
    following: asyncio.Queue,
    timeout_s: float,
    settles: Callable[[Any], bool],
):
    """The first event `following` receives that `settles` accepts, waiting past the others
    (another write of the memory still in flight announces the same stage), or None when
    none came within `timeout_s` in all."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        event = await waiter.next_event(following, max(deadline - loop.time(), 0.0))
        if event is None or settles(event):
            return event


def _waited_on(event) -> str:
    """The id a waiter expects: the memory's, or the command's for a link."""
    if isinstance(event, edges_pb2.MemoriesLinked):
        return event.command_id
    return getattr(event, "memory_id", "") or event.memory.id
