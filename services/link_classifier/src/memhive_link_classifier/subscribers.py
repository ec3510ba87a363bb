"""Thin subscriber: decode MemoryIndexed events and link each new memory in turn."""

from __future__ import annotations

from collections.abc import Sequence

from memhive.v1 import events_pb2
from memhive_contracts import subjects
from memhive_contracts.codec import decode
from memhive_contracts.mapping import memory_from_pb
from memhive_ports.poison import Poison
from nats.aio.msg import Msg

from memhive_link_classifier.linking import IndexedMemory, LinkNewMemory


class MemoryIndexedSubscriber:
    def __init__(self, link: LinkNewMemory, *, side_by_side: bool = False) -> None:
        """side_by_side: link a batch's memories at once (no LLM: nothing spent in order)."""
        self._link, self._side_by_side = link, side_by_side

    async def handle_batch(self, msgs: Sequence[Msg]) -> None:
        batch = [_indexed(msg) for msg in msgs]
        if self._side_by_side and len(batch) > 1:
            await self._link.side_by_side(batch)
            return
        # One at a time: each may be an LLM call, and the spend guard counts them in order.
        for indexed in batch:
            await self._link(indexed)


def _indexed(msg: Msg) -> IndexedMemory:
    if not msg.subject.startswith(f"{subjects.MEMORY_INDEXED}."):
        raise Poison(f"the link classifier does not handle {msg.subject}")
    event = decode(msg.data, events_pb2.MemoryIndexed)
    if not event.embedding.values:
        raise Poison("MemoryIndexed without an embedding: nothing to find neighbours with")
    memory = memory_from_pb(event.memory)
    return IndexedMemory(
        event_id=event.event_id,
        workspace_id=subjects.workspace_of(msg.subject),
        memory_id=memory.id,
        revision=memory.revision,
        vector=list(event.embedding.values),
        scope=memory.scope_ref,
        body=memory.body,
        encoder=event.embedding.model,
        near_duplicate_check=(
            event.near_duplicate_check if event.HasField("near_duplicate_check") else None
        ),
        checked_at=memory.created_at,  # the gateway's check came just after
        near_duplicates={n.memory_id: n.similarity for n in event.near_duplicates},
    )
