"""Thin subscriber: decode MemoryIndexed events (alone, or several in a MemoriesIndexed)
and link each new memory in turn."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from memhive.v1 import events_pb2
from memhive_contracts import subjects
from memhive_contracts.codec import decode
from memhive_contracts.mapping import memory_from_pb
from memhive_ports.poison import Poison
from nats.aio.msg import Msg

from memhive_link_classifier.linking import IndexedMemory, LinkNewMemory

# Events this process has linked one at a time, the latest kept. A message that fails
# part-way comes back whole (retried alone, then redelivered), and the memories linked
# before the failure are not asked about again: with an LLM each is a call spent.
LINKED_KEPT = 4096


class MemoryIndexedSubscriber:
    def __init__(
        self,
        link: LinkNewMemory,
        *,
        side_by_side: bool = False,
        at_once: int = 64,
        linked_kept: int = LINKED_KEPT,
    ) -> None:
        """side_by_side: link a batch's memories at once (no LLM: nothing spent in order), at
        most `at_once` together: a message may hold a whole batch of embed's, and larger
        groups linked as one read more records at once and propose more edges."""
        self._link, self._side_by_side, self._at_once = link, side_by_side, at_once
        self._linked: OrderedDict[str, None] = OrderedDict()
        self._linked_kept = linked_kept

    async def handle_batch(self, msgs: Sequence[Msg]) -> None:
        batch = [indexed for msg in msgs for indexed in _indexed(msg)]
        if self._side_by_side and len(batch) > 1:
            failures = []
            for start in range(0, len(batch), self._at_once):
                try:
                    await self._link.side_by_side(batch[start : start + self._at_once])
                except Exception as exc:  # the others linked all the same, as side_by_side does
                    failures.append(exc)
            if failures:
                raise failures[0]
            return
        # One at a time: each may be an LLM call, and the spend guard counts them in order.
        for indexed in batch:
            if indexed.event_id in self._linked:
                continue  # linked before a failure further on: its edges went out then
            await self._link(indexed)
            self._linked[indexed.event_id] = None
            if len(self._linked) > self._linked_kept:
                self._linked.popitem(last=False)


def _indexed(msg: Msg) -> list[IndexedMemory]:
    prefix, workspace_id = msg.subject.rsplit(".", 1)
    if prefix == subjects.MEMORY_INDEXED:
        events = [decode(msg.data, events_pb2.MemoryIndexed)]
    elif prefix == subjects.MEMORIES_INDEXED:
        events = list(decode(msg.data, events_pb2.MemoriesIndexed).indexed)
    else:
        raise Poison(f"the link classifier does not handle {msg.subject}")
    return [_indexed_memory(event, workspace_id) for event in events]


def _indexed_memory(event: events_pb2.MemoryIndexed, workspace_id: str) -> IndexedMemory:
    if not event.embedding.values:
        raise Poison("MemoryIndexed without an embedding: nothing to find neighbours with")
    memory = memory_from_pb(event.memory)
    return IndexedMemory(
        event_id=event.event_id,
        workspace_id=workspace_id,
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
