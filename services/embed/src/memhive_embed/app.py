"""Composition root of the embed service."""

from __future__ import annotations

from memhive_adapters.nats.consumer import PullConsumer
from memhive_adapters.nats.kv_migration_lease import KvMigrationLease
from memhive_adapters.nats.record_replay import RecordReplay
from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_adapters.runtime.service_group import ServiceGroup
from memhive_contracts import streams, subjects

from memhive_embed.encoder_migration import EncoderMigration
from memhive_embed.indexer import LaneIndexer
from memhive_embed.reindex import Reindexer
from memhive_embed.reindex_responder import ReindexResponder
from memhive_embed.subscribers import EVENT_TYPES, MemoryEventSubscriber
from memhive_embed.vectors_first import VectorsFirst

DURABLE = "embed"


async def create_embed(infra: Infrastructure) -> ServiceGroup:
    """The indexing consumer, the reindex responder and the encoder migration: the lanes'
    owner rebuilds them."""
    vector, lexical = await infra.lanes()
    indexer = LaneIndexer(
        infra.store,
        vector,
        lexical,
        infra.background_embedder,  # its passes are nobody's wait: apart from callers'
        infra.publisher,
        infra.clock,
        trust_events=not infra.generations.shared,  # embedded lanes: this process alone
        terms=infra.term_weights,  # the rerank option on: each memory keeps its terms
    )
    # Events that carry their vector (a caller waits on them) never wait behind the passes.
    first = VectorsFirst(indexer, chunk=infra.settings.embedder.batch_size)
    consumer = PullConsumer(
        infra.js,
        stream=streams.LOG_STREAM,
        durable=DURABLE,
        subjects=[subjects.any_workspace(prefix) for prefix in EVENT_TYPES],
        handle_batch=MemoryEventSubscriber(first).handle_batch,
        batch_size=infra.settings.embedder.batch_size,
        max_deliveries=infra.settings.embedder.max_deliveries,
    )
    reindexer = create_reindexer(infra)
    migration = await create_migration(infra, reindexer)
    return ServiceGroup([consumer, ReindexResponder(infra.nats, reindexer), migration])


async def create_migration(infra: Infrastructure, reindexer: Reindexer) -> EncoderMigration:
    """Replicas of server lanes share them: a lease on the bus says which one migrates."""
    generations = infra.generations
    lease = None
    if generations.shared:
        lease = await KvMigrationLease.open(infra.js, generations.pointer_key)
    lanes = infra.lane_set
    return EncoderMigration(
        reindexer, lambda: lanes.current.spec.embedding_model, generations.configured, lease
    )


def create_reindexer(infra: Infrastructure) -> Reindexer:
    return Reindexer(
        RecordReplay(infra.js),
        infra.lane_set,
        infra.generations,
        infra.generation_pointer,
        retire_after_s=infra.settings.embedder.retire_after_s,
        terms=infra.term_weights,
    )
