"""Composition root of the embed service."""

from __future__ import annotations

from memhive_adapters.nats.consumer import PullConsumer
from memhive_adapters.nats.record_replay import RecordReplay
from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_adapters.runtime.service_group import ServiceGroup
from memhive_contracts import streams, subjects

from memhive_embed.indexer import LaneIndexer
from memhive_embed.reindex import Reindexer
from memhive_embed.reindex_responder import ReindexResponder
from memhive_embed.subscribers import EVENT_TYPES, MemoryEventSubscriber

DURABLE = "embed"


async def create_embed(infra: Infrastructure) -> ServiceGroup:
    """The indexing consumer, and the reindex responder: the lanes' owner rebuilds them."""
    vector, lexical = await infra.lanes()
    indexer = LaneIndexer(
        infra.store, vector, lexical, infra.embedder, infra.publisher, infra.clock
    )
    consumer = PullConsumer(
        infra.js,
        stream=streams.LOG_STREAM,
        durable=DURABLE,
        subjects=[subjects.any_workspace(prefix) for prefix in EVENT_TYPES],
        handle_batch=MemoryEventSubscriber(indexer).handle_batch,
        batch_size=infra.settings.embedder.batch_size,
        max_deliveries=infra.settings.embedder.max_deliveries,
    )
    return ServiceGroup([consumer, ReindexResponder(infra.nats, create_reindexer(infra))])


def create_reindexer(infra: Infrastructure) -> Reindexer:
    return Reindexer(
        RecordReplay(infra.js),
        infra.lane_set,
        infra.generations,
        infra.generation_pointer,
        retire_after_s=infra.settings.embedder.retire_after_s,
    )
