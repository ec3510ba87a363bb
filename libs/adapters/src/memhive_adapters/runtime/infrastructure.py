"""Connected adapters for one process, built from settings.

In the embedded default every service shares one Infrastructure (the embedded engines
allow one owning process per data directory); in distributed mode each process builds
its own against a NATS cluster, a Qdrant server and OpenSearch. Either way each service is
on the bus as its own user (memhive_contracts.bus_permissions): in one process, every service
has its own connection (`connect_as`) over the shared lanes.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from memhive_contracts.bus_permissions import ADMIN
from memhive_ports import (
    Clock,
    Embedder,
    LexicalIndex,
    Reranker,
    TermWeights,
    TokenDirectory,
    VectorIndex,
)
from memhive_ports.products import ProductDirectory
from memhive_settings import MemhiveSettings
from nats.js import JetStreamContext

from memhive_adapters.clock import SystemClock
from memhive_adapters.free_space import FreeSpace, data_dir_space
from memhive_adapters.nats.bus_client import BusClient
from memhive_adapters.nats.connection import connect, ensure_streams
from memhive_adapters.nats.credentials import bus_credentials
from memhive_adapters.nats.decoded_records import DecodedRecords
from memhive_adapters.nats.kv_generation_pointer import KvGenerationPointer
from memhive_adapters.nats.kv_memory_store import KvMemoryStore
from memhive_adapters.nats.kv_product_directory import KvProductDirectory
from memhive_adapters.nats.kv_token_directory import KvTokenDirectory
from memhive_adapters.nats.publisher import JetStreamPublisher
from memhive_adapters.nats.record_replay import RecordReplay
from memhive_adapters.nats.stream_check import require_streams
from memhive_adapters.runtime.generation_follower import GenerationFollower
from memhive_adapters.runtime.lane_builders import FP32_MINILM, threads_for
from memhive_adapters.runtime.lane_generations import LaneGenerations
from memhive_adapters.runtime.lane_set import LaneSet
from memhive_adapters.runtime.lane_upgrade import upgrade_embedded_lanes
from memhive_adapters.runtime.reranker import open_reranker, term_weights_of
from memhive_adapters.runtime.swappable_lanes import (
    Passes,
    SwappableEmbedder,
    SwappableLexicalIndex,
    SwappableVectorIndex,
)

if TYPE_CHECKING:  # the model's imports (numpy, onnxruntime) load only when it is on
    from memhive_adapters.rerank.splade_reranker import SpladeReranker


@dataclass
class Infrastructure:
    settings: MemhiveSettings
    nats: BusClient
    js: JetStreamContext
    store: KvMemoryStore
    tokens: TokenDirectory
    publisher: JetStreamPublisher
    clock: Clock = field(default_factory=SystemClock)
    _stack: AsyncExitStack = field(default_factory=AsyncExitStack)
    _lanes: tuple[VectorIndex, LexicalIndex] | None = None
    _generation_pointer: KvGenerationPointer | None = None
    _follower: GenerationFollower | None = None
    # Set on a service's connection in a shared process: the lanes are the owner's.
    _lane_owner: Infrastructure | None = None
    _decoded: DecodedRecords | None = None  # shared with its siblings, like the lanes

    async def connect_as(self, user: str, *, name: str) -> Infrastructure:
        """The same lanes over a bus connection of its own as `user` (memhive run: each
        service on the bus as itself). The caller closes it; this one closes the lanes."""
        sibling = await _open_bus(self.settings, name=name, user=user, decoded=self._decoded)
        sibling._lane_owner = self._lane_owner or self
        sibling.clock = self.clock
        return sibling

    async def lanes(self) -> tuple[VectorIndex, LexicalIndex]:
        """Opened on first use: only services that search or index need them. They are
        views of `lane_set`, so a reindex can swap the generation under them, here or in
        another process (the generation pointer on the bus, followed from here on)."""
        if self._lane_owner is not None:
            return await self._lane_owner.lanes()
        if self._lanes is None:
            if self.generations.shared:  # server lanes: the bus says which generation serves
                pointer = await KvGenerationPointer.open(self.js, self.generations.pointer_key)
                self.generations.learn(await pointer.read())
            self.generations.sweep()  # a reindex cut short leaves its half-built generation
            await upgrade_embedded_lanes(self.generations, RecordReplay(self.js))
            await self.lane_set.current.open()
            self._stack.push_async_callback(self.lane_set.close)
            if self.generations.shared:
                follower = GenerationFollower(pointer, self.generations, self.lane_set)
                await follower.start()
                self._stack.push_async_callback(follower.stop)
                self._generation_pointer, self._follower = pointer, follower
            lanes = self.lane_set
            self._lanes = (SwappableVectorIndex(lanes), SwappableLexicalIndex(lanes))
        return self._lanes

    @property
    def generation_pointer(self) -> KvGenerationPointer | None:
        """The bus pointer this process follows: None until the lanes are opened, and for
        embedded lanes (this process's own: the pointer file alone says which serves)."""
        return (self._lane_owner or self)._generation_pointer

    @property
    def serves_pointed_generation(self) -> bool:
        """False when the bus points every process at a generation whose encoder this one
        could not load (it is then not ready)."""
        follower = (self._lane_owner or self)._follower
        return follower is None or follower.behind is None

    @property
    def lanes_opened(self) -> bool:
        """Whether this process opened the lanes (a sibling connection shares its owner's)."""
        return (self._lane_owner or self)._lanes is not None

    @cached_property
    def products(self) -> ProductDirectory:
        return KvProductDirectory(self.js, self.space)

    @cached_property
    def generations(self) -> LaneGenerations:
        if self._lane_owner is not None:
            return self._lane_owner.generations
        return LaneGenerations(self.settings, self.space)

    @cached_property
    def space(self) -> FreeSpace | None:
        """The data dir's low-space watermark, one per process (it logs its changes)."""
        if self._lane_owner is not None:
            return self._lane_owner.space
        return data_dir_space(self.settings)

    @cached_property
    def lane_set(self) -> LaneSet:
        if self._lane_owner is not None:
            return self._lane_owner.lane_set
        return LaneSet(self.generations.build(self.generations.current_spec()))

    @cached_property
    def embedder(self) -> Embedder:
        if self._lane_owner is not None:
            return self._lane_owner.embedder
        return SwappableEmbedder(self.lane_set)

    @cached_property
    def reader_embedder(self) -> Embedder:
        """The embedder for a reader's passes (a recall's), which go before the passes of
        writers waiting (saves, updates, imports)."""
        if self._lane_owner is not None:
            return self._lane_owner.reader_embedder
        return SwappableEmbedder(self.lane_set, Passes.READER)

    @cached_property
    def background_embedder(self) -> Embedder:
        """The embedder for passes nobody waits on (embed's indexing), run apart from the
        callers' passes (a recall's), which never queue behind them."""
        if self._lane_owner is not None:
            return self._lane_owner.background_embedder
        return SwappableEmbedder(self.lane_set, Passes.BACKGROUND)

    @cached_property
    def reranker(self) -> Reranker | None:
        """The optional reranker (`query.rerank`), one per process: embed computes its
        document terms and query scores with it, taking turns on one worker thread."""
        return self._splade

    @cached_property
    def term_weights(self) -> TermWeights | None:
        """The reranker's document terms, when memories keep them (None otherwise)."""
        return term_weights_of(self.settings.query.rerank, self._splade)

    @cached_property
    def _splade(self) -> SpladeReranker | None:
        if self._lane_owner is not None:
            return self._lane_owner._splade
        threads = threads_for(self.settings, FP32_MINILM)  # a MiniLM-sized pass
        return open_reranker(self.settings.query.rerank, threads)

    async def close(self) -> None:
        await self._stack.aclose()
        await self.nats.drain()


async def open_infrastructure(
    settings: MemhiveSettings, *, name: str, user: str = ADMIN
) -> Infrastructure:
    """Connected as bus user `user`. Declares the streams when settings say so (that needs
    the admin user), else only checks that they exist."""
    return await _open_bus(settings, name=name, user=user, declare=settings.nats.declare_streams)


async def _open_bus(
    settings: MemhiveSettings,
    *,
    name: str,
    user: str,
    declare: bool = False,
    decoded: DecodedRecords | None = None,
) -> Infrastructure:
    if decoded is None:
        decoded = DecodedRecords(settings.nats.decoded_records_kept)
    nc = await connect(
        settings.nats.url,
        name=name,
        timeout_s=settings.nats.connect_timeout_s,
        credentials=bus_credentials(settings, user),
        request_timeout_s=settings.nats.request_timeout_s,
    )
    try:
        js = nc.jetstream()
        if declare:
            await ensure_streams(js, replicas=settings.nats.replicas)
        else:
            await require_streams(js)
        return Infrastructure(
            settings=settings,
            nats=nc,
            js=js,
            store=await KvMemoryStore.open(nc, decoded),
            tokens=await KvTokenDirectory.open(js),
            publisher=JetStreamPublisher(js),
            _decoded=decoded,
        )
    except BaseException:
        await nc.close()
        raise
