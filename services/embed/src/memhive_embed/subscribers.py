"""Thin subscriber: decode saved/forgotten events into index requests for the LaneIndexer."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Protocol

from memhive.v1 import events_pb2
from memhive_contracts import subjects
from memhive_contracts.codec import decode
from memhive_contracts.mapping import memory_from_pb
from memhive_ports.poison import Poison
from nats.aio.msg import Msg

from memhive_embed.indexer import IndexRequest

EVENT_TYPES = {
    subjects.MEMORY_SAVED: events_pb2.MemorySaved,
    subjects.MEMORY_FORGOTTEN: events_pb2.MemoryForgotten,
    subjects.MEMORY_PURGED: events_pb2.MemoryPurged,
}


class Indexer(Protocol):
    async def index(self, requests: Sequence[IndexRequest]) -> Awaitable[None]: ...


class MemoryEventSubscriber:
    def __init__(self, indexer: Indexer) -> None:
        self._indexer = indexer

    async def handle_batch(self, msgs: Sequence[Msg]) -> Awaitable[None]:
        """Acknowledged once the lanes' writes are durable (see LaneIndexer.index)."""
        return await self._indexer.index([_request(m) for m in msgs])


def _request(msg: Msg) -> IndexRequest:
    prefix, workspace_id = msg.subject.rsplit(".", 1)
    if prefix not in EVENT_TYPES:
        raise Poison(f"embed does not handle {msg.subject}")
    event = decode(msg.data, EVENT_TYPES[prefix])
    if isinstance(event, events_pb2.MemoryPurged):  # no memory left to carry
        return IndexRequest(event.event_id, workspace_id, event.memory_id, 0, None)
    embedding = getattr(event, "embedding", None)
    return IndexRequest(
        event_id=event.event_id,
        workspace_id=workspace_id,
        memory_id=event.memory.id,
        revision=event.memory.revision,
        embedding=embedding if embedding is not None and embedding.values else None,
        memory=memory_from_pb(event.memory),
        redelivered=msg.metadata.num_delivered > 1,
        near_duplicate_check=_checked(event),
        near_duplicates=getattr(event, "near_duplicates", ()),
    )


def _checked(event: events_pb2.MemorySaved | events_pb2.MemoryForgotten) -> float | None:
    if isinstance(event, events_pb2.MemorySaved) and event.HasField("near_duplicate_check"):
        return event.near_duplicate_check
    return None
