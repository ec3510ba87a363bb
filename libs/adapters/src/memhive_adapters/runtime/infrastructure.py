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
    _embedder: Embedder | None = None

    async def lanes(self) -> tuple[VectorIndex, LexicalIndex]:
        """Opened on first use: only services that search or index need them."""
        if self._lanes is None:
            vector, lexical = (
                build_vector_index(self.settings, self.embedder),
                build_lexical_index(self.settings),
            )
            await vector.ensure_ready()
            await lexical.ensure_ready()
            self._stack.push_async_callback(vector.close)
            self._stack.push_async_callback(lexical.close)
            self._lanes = (vector, lexical)
        return self._lanes

    @cached_property
    def embedder(self) -> Embedder:
        return build_embedder(self.settings)

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


def build_embedder(settings: MemhiveSettings) -> Embedder:
    embedding = settings.embedding
    if embedding.provider == "litellm":
        from memhive_adapters.embedding.litellm_embedder import LiteLlmEmbedder

        if embedding.dimensions is None:
            raise ValueError("MEMHIVE_EMBEDDING__DIMENSIONS is required with provider=litellm")
        key = embedding.api_key.get_secret_value() if embedding.api_key else None
        return LiteLlmEmbedder(embedding.model, embedding.dimensions, embedding.api_base, key)
    from memhive_adapters.embedding.minilm import MiniLmEmbedder

    return MiniLmEmbedder(threads=embedding.threads)


def build_vector_index(settings: MemhiveSettings, embedder: Embedder) -> VectorIndex:
    vector = settings.vector
    if vector.backend == "qdrant":
        from memhive_adapters.vector.qdrant_index import QdrantVectorIndex

        if not vector.url:
            raise ValueError("MEMHIVE_VECTOR__URL is required with backend=qdrant")
        key = vector.api_key.get_secret_value() if vector.api_key else None
        return QdrantVectorIndex.from_url(vector.url, key, vector.collection, embedder.dimensions)
    from memhive_adapters.vector.edge_index import EdgeVectorIndex

    return EdgeVectorIndex(settings.vector_dir, embedder.dimensions)


def build_lexical_index(settings: MemhiveSettings) -> LexicalIndex:
    lexical = settings.lexical
    if lexical.backend == "opensearch":
        from memhive_adapters.lexical.opensearch_index import OpenSearchLexicalIndex

        if not lexical.url:
            raise ValueError("MEMHIVE_LEXICAL__URL is required with backend=opensearch")
        password = lexical.password.get_secret_value() if lexical.password else None
        return OpenSearchLexicalIndex.from_settings(
            lexical.url, lexical.username, password, lexical.verify_certs, lexical.index
        )
    from memhive_adapters.lexical.tantivy_index import TantivyLexicalIndex

    return TantivyLexicalIndex(settings.lexical_dir)
