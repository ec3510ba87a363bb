"""Connected adapters for one process, built from settings.

In the embedded default every service shares one Infrastructure (the embedded engines
allow one owning process per data directory); in distributed mode each process builds
its own against a NATS cluster, a Qdrant server and OpenSearch.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from functools import cached_property

from memhive_ports import Clock, Embedder, LexicalIndex, MemoryStore, TokenDirectory, VectorIndex
from memhive_settings import MemhiveSettings
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext

from memhive_adapters.clock import SystemClock
from memhive_adapters.nats.connection import connect, ensure_streams
from memhive_adapters.nats.kv_memory_store import KvMemoryStore
from memhive_adapters.nats.kv_token_directory import KvTokenDirectory
from memhive_adapters.nats.publisher import JetStreamPublisher
from memhive_adapters.runtime.lane_generations import LaneGenerations
from memhive_adapters.runtime.lane_set import LaneSet
from memhive_adapters.runtime.swappable_lanes import (
    SwappableEmbedder,
    SwappableLexicalIndex,
    SwappableVectorIndex,
)


@dataclass
class Infrastructure:
    settings: MemhiveSettings
    nats: NatsClient
    js: JetStreamContext
    store: MemoryStore
    tokens: TokenDirectory
    publisher: JetStreamPublisher
    clock: Clock = field(default_factory=SystemClock)
    _stack: AsyncExitStack = field(default_factory=AsyncExitStack)
    _lanes: tuple[VectorIndex, LexicalIndex] | None = None

    async def lanes(self) -> tuple[VectorIndex, LexicalIndex]:
        """Opened on first use: only services that search or index need them. They are
        views of `lane_set`, so a reindex can swap the generation under them."""
        if self._lanes is None:
            self.generations.sweep()  # a reindex cut short leaves its half-built generation
            await self.lane_set.current.open()
            self._stack.push_async_callback(self.lane_set.close)
            lanes = self.lane_set
            self._lanes = (SwappableVectorIndex(lanes), SwappableLexicalIndex(lanes))
        return self._lanes

    @property
    def lanes_opened(self) -> bool:
        return self._lanes is not None

    @cached_property
    def generations(self) -> LaneGenerations:
        return LaneGenerations(self.settings)

    @cached_property
    def lane_set(self) -> LaneSet:
        return LaneSet(self.generations.build(self.generations.current_spec()))

    @cached_property
    def embedder(self) -> Embedder:
        return SwappableEmbedder(self.lane_set)

    async def close(self) -> None:
        await self._stack.aclose()
        await self.nats.drain()


async def open_infrastructure(settings: MemhiveSettings, *, name: str) -> Infrastructure:
    nc = await connect(settings.nats.url, name=name, timeout_s=settings.nats.connect_timeout_s)
    js = nc.jetstream()
    await ensure_streams(js, replicas=settings.nats.replicas)
    return Infrastructure(
        settings=settings,
        nats=nc,
        js=js,
        store=await KvMemoryStore.open(js),
        tokens=await KvTokenDirectory.open(js),
        publisher=JetStreamPublisher(js),
    )
