"""Events that need no encoder pass are indexed at once; those that need one queue.

A save waiting for `indexed` carries its vector (the gateway embedded it while the caller
waited), and forgets and purges need none. Indexed in arrival order, such an event waited
behind every pass of the backlog before it: with four clients saving `accepted`, a fifth
client's `indexed` save took ~1 s at p50 (docs/benchmarks.md, "Vectors first"). Here
each batch's events that need no pass go through the LaneIndexer at once, and those that
need one (saves answered before their vector, upstream events without one) go on a queue
that one worker indexes in order beside the next batches, taking whatever has queued (up
to `chunk` events) at a time, so that a backlog is still indexed in batches.

- Order per memory holds: while a memory has an event on the queue, its later events
  queue behind it, so the lanes never take an older revision after a newer one.
- A batch's messages are acknowledged once both halves are durable; if the queued half
  fails, the whole batch comes back (indexing is idempotent).
- A redelivered event is indexed at once even when it needs a pass, unless its memory is
  queued: a failure of its own then reaches the consumer, which counts deliveries and
  dead-letters a poison message, as before.
- The queue holds at most `queued_max` events; past that, a batch waits for room once its
  own ready events are indexed (the bus holds the rest: behind a longer backlog than that,
  an event that needs no pass waits again).
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import Awaitable, Sequence

from memhive_embed.indexer import IndexRequest, LaneIndexer

# ~1.3 s of MiniLM int8 passes on a free core: well within the consumer's 30 s ack wait.
QUEUED_MAX = 512


class VectorsFirst:
    def __init__(
        self, indexer: LaneIndexer, *, chunk: int = 64, queued_max: int = QUEUED_MAX
    ) -> None:
        if chunk < 1 or queued_max < 1:
            raise ValueError("chunk and queued_max must be at least 1")
        self._indexer, self._chunk, self._queued_max = indexer, chunk, queued_max
        self._pending: deque[tuple[list[IndexRequest], asyncio.Future]] = deque()
        # memory id -> its events queued or being indexed by the worker
        self._queued_memories: Counter[str] = Counter()
        self._room = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None

    async def index(self, requests: Sequence[IndexRequest]) -> Awaitable[None]:
        """As LaneIndexer.index: returns once the ready events are in both lanes and
        announced; the awaitable completes once every event of the batch is durable."""
        ready, later = self._split(requests)
        durable = await self._indexer.index(ready) if ready else None
        queued = await self._enqueue(later) if later else None
        return _both(durable, queued)

    def _split(self, requests: Sequence[IndexRequest]) -> tuple[list, list]:
        ready: list[IndexRequest] = []
        later: list[IndexRequest] = []
        behind: set[str] = set()  # memories with an event of this batch on the queue
        for r in requests:
            queued = r.memory_id in behind or self._queued_memories[r.memory_id] > 0
            if queued or (not r.redelivered and self._indexer.needs_pass(r)):
                later.append(r)
                behind.add(r.memory_id)
            else:
                ready.append(r)
        return ready, later

    async def _enqueue(self, requests: list[IndexRequest]) -> asyncio.Future:
        while not self._room_for(len(requests)):
            self._room.clear()
            await self._room.wait()
        indexed = asyncio.get_running_loop().create_future()
        self._pending.append((requests, indexed))
        self._queued_memories.update(r.memory_id for r in requests)
        if self._worker is None:
            self._worker = asyncio.create_task(self._index_queued(), name="embed-queued")
        return indexed

    def _room_for(self, count: int) -> bool:
        """An empty queue takes any batch; otherwise the batch must fit in `queued_max`."""
        queued = self._queued_memories.total()
        return queued == 0 or queued + count <= self._queued_max

    async def _index_queued(self) -> None:
        try:
            while self._pending:
                taken = [self._pending.popleft()]
                requests = list(taken[0][0])
                while self._pending and len(requests) + len(self._pending[0][0]) <= self._chunk:
                    taken.append(self._pending.popleft())
                    requests += taken[-1][0]
                await self._index_taken(requests, [future for _, future in taken])
        finally:
            self._worker = None

    async def _index_taken(self, requests: list[IndexRequest], futures: list) -> None:
        try:
            durable = await self._indexer.index(requests)
        except Exception as exc:  # their batches come back; indexing them again is harmless
            for future in futures:
                future.set_exception(exc)
        else:
            for future in futures:
                future.set_result(durable)
        finally:
            self._queued_memories.subtract(r.memory_id for r in requests)
            self._queued_memories += Counter()  # drops the ids at zero
            self._room.set()


async def _both(durable: Awaitable[None] | None, queued: asyncio.Future | None) -> None:
    try:
        if durable is not None:
            await durable
    finally:  # awaited either way: a failure of the queued half is never left unread
        if queued is not None:
            await (await queued)
