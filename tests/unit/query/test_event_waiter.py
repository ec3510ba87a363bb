"""EventWaiter without a bus: events handed to its subscription callback as the NATS
client would, back to back. A follower keeps every one; a one-shot waiter only the first."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from memhive.v1 import events_pb2
from memhive_contracts import subjects
from memhive_contracts.codec import encode
from memhive_query.event_waiter import EventWaiter, settling_event

MEMORY = "0199a8a0-0000-7000-8000-000000000001"


@dataclass
class Msg:
    subject: str
    data: bytes


def indexed(event_id: str) -> Msg:
    event = events_pb2.MemoryIndexed(event_id=event_id)
    event.memory.id = MEMORY
    return Msg(subjects.for_workspace(subjects.MEMORY_INDEXED, "ws"), encode(event))


def unindexed() -> Msg:
    event = events_pb2.MemoryUnindexed(event_id="forget:unindexed", memory_id=MEMORY)
    return Msg(subjects.for_workspace(subjects.MEMORY_UNINDEXED, "ws"), encode(event))


async def test_events_arriving_back_to_back_all_reach_a_follower() -> None:
    """A forget waits past an earlier write's MemoryIndexed; its own MemoryUnindexed comes
    in the same read from the socket, before the waiting coroutine runs again."""
    waiter = EventWaiter(nc=None)

    def not_a_write(event) -> bool:
        return isinstance(event, events_pb2.MemoryUnindexed)

    with waiter.following(MEMORY, "indexed") as following:
        await waiter._on_event(indexed("earlier-save:indexed"))  # noqa: SLF001 - NATS callback
        await waiter._on_event(unindexed())  # noqa: SLF001
        event = await settling_event(waiter, following, 1.0, not_a_write)
    assert isinstance(event, events_pb2.MemoryUnindexed)
    assert waiter._following == {}  # noqa: SLF001 - stopped following with the block


async def test_a_follower_times_out_in_all_and_stops_following_with_its_block() -> None:
    waiter = EventWaiter(nc=None)
    loop = asyncio.get_running_loop()
    with waiter.following(MEMORY, "indexed") as following:
        await waiter._on_event(indexed("earlier-save:indexed"))  # noqa: SLF001
        began = loop.time()
        assert await settling_event(waiter, following, 0.2, lambda event: False) is None
        assert 0.2 <= loop.time() - began < 1.0
    assert waiter._following == {}  # noqa: SLF001


async def test_a_one_shot_waiter_gets_the_first_event_and_is_gone() -> None:
    waiter = EventWaiter(nc=None)
    future = waiter.expect(MEMORY, "indexed")
    await waiter._on_event(indexed("first:indexed"))  # noqa: SLF001
    await waiter._on_event(indexed("second:indexed"))  # noqa: SLF001
    event = await waiter.event(future, 1.0)
    assert event.event_id == "first:indexed"
    assert waiter._waiting == {}  # noqa: SLF001


async def test_memories_indexed_together_each_reach_their_own_waiter() -> None:
    waiter = EventWaiter(nc=None)
    others = [f"0199a8a0-0000-7000-8000-00000000000{n}" for n in (2, 3)]
    futures = {m: waiter.expect(m, "indexed") for m in (MEMORY, *others)}
    together = events_pb2.MemoriesIndexed(event_id="batch")
    for memory_id in (MEMORY, *others):
        together.indexed.add(event_id=f"{memory_id}:indexed").memory.id = memory_id
    msg = Msg(subjects.for_workspace(subjects.MEMORIES_INDEXED, "ws"), encode(together))
    await waiter._on_event(msg)  # noqa: SLF001 - NATS callback
    for memory_id, future in futures.items():
        event = await waiter.event(future, 1.0)
        assert isinstance(event, events_pb2.MemoryIndexed)
        assert (event.event_id, event.memory.id) == (f"{memory_id}:indexed", memory_id)
    assert waiter._waiting == {}  # noqa: SLF001


class Stalls:
    """The bus's stalls as BusLiveness tells them (`stall` stands in for a probe's verdict)."""

    def __init__(self) -> None:
        self.stalled = False
        self._callbacks: list = []

    def on_stall(self, callback) -> None:
        self._callbacks.append(callback)

    def stall(self) -> None:
        self.stalled = True
        for callback in self._callbacks:
            callback()


async def test_a_wait_ends_as_soon_as_the_bus_stalls() -> None:
    """No event can come from a stalled bus; the command is durable, so the caller hears
    'accepted' now instead of after the whole wait."""
    stalls = Stalls()
    waiter = EventWaiter(nc=None, stalls=stalls)
    future = waiter.expect(MEMORY, "indexed")
    waiting = asyncio.ensure_future(waiter.wait(future, 60))
    with waiter.following(MEMORY, "indexed") as following:
        next_one = asyncio.ensure_future(waiter.next_event(following, 60))
        await asyncio.sleep(0.01)
        assert not waiting.done() and not next_one.done()
        stalls.stall()
        async with asyncio.timeout(1):
            assert await waiting is False
            assert await next_one is None
    assert waiter._waiting == {} and waiter._following == {}  # noqa: SLF001 - discarded


async def test_a_wait_begun_while_the_bus_is_stalled_ends_at_once() -> None:
    stalls = Stalls()
    waiter = EventWaiter(nc=None, stalls=stalls)
    stalls.stall()
    future = waiter.expect(MEMORY, "indexed")
    async with asyncio.timeout(1):
        assert await waiter.wait(future, 60) is False
        with waiter.following(MEMORY, "indexed") as following:
            assert await waiter.next_event(following, 60) is None


async def test_a_wait_past_its_timeout_ends_empty_and_is_discarded() -> None:
    waiter = EventWaiter(nc=None)
    future = waiter.expect(MEMORY, "indexed")
    assert await waiter.event(future, 0.01) is None
    assert waiter._waiting == {}  # noqa: SLF001
    await waiter._on_event(indexed("late"))  # noqa: SLF001 - a late event finds no one
    with waiter.following(MEMORY, "indexed") as following:
        assert await waiter.next_event(following, 0.01) is None
        await waiter._on_event(indexed("now"))  # noqa: SLF001
        assert (await waiter.next_event(following, 0)).event_id == "now"  # already there
