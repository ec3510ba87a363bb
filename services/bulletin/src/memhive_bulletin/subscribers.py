"""Thin subscriber: which scopes each memory event changed, handed to the scheduler, and
which records it changed, dropped from the bulletin's copies first.

It follows MemoryIndexed, not MemorySaved: the bulletin reads a scope's ids from the
lexical lane, so a scope is complete only once its new memory is indexed there, and every
MemorySaved is followed by a MemoryIndexed (or, forgotten meanwhile, a MemoryForgotten).
One delivery per save instead of two. A MemorySaved delivered by a durable still
subscribed to it is handled the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memhive.v1 import edges_pb2, events_pb2
from memhive_contracts import subjects
from memhive_contracts.codec import decode
from memhive_contracts.mapping import memory_from_pb
from memhive_domain.scopes import ScopeRef
from memhive_ports.poison import Poison
from nats.aio.msg import Msg

from memhive_bulletin.record_cache import EventFreshRecords
from memhive_bulletin.scheduler import BulletinScheduler

MEMORY_EVENTS = {
    subjects.MEMORY_SAVED: events_pb2.MemorySaved,
    subjects.MEMORY_INDEXED: events_pb2.MemoryIndexed,
    subjects.MEMORY_FORGOTTEN: events_pb2.MemoryForgotten,
}
EVENT_SUBJECTS = (subjects.MEMORY_INDEXED, subjects.MEMORY_FORGOTTEN, subjects.MEMORIES_LINKED)


class ScopeChangeSubscriber:
    def __init__(self, scheduler: BulletinScheduler, records: EventFreshRecords) -> None:
        self._scheduler, self._records = scheduler, records

    async def handle_batch(self, msgs: Sequence[Msg]) -> None:
        changed: set[tuple[str, ScopeRef]] = set()
        for msg in msgs:
            changed.update(await self._scopes_of(msg))
        for workspace_id, scope in sorted(changed, key=lambda c: (c[0], c[1].key)):
            self._scheduler.mark_changed(workspace_id, scope)

    async def _scopes_of(self, msg: Msg) -> Iterable[tuple[str, ScopeRef]]:
        prefix, workspace_id = msg.subject.rsplit(".", 1)
        if prefix in MEMORY_EVENTS:
            memory = memory_from_pb(decode(msg.data, MEMORY_EVENTS[prefix]).memory)
            self._records.drop(memory.workspace_id, [memory.id])
            return [(memory.workspace_id, memory.scope_ref)]
        if prefix == subjects.MEMORIES_LINKED:
            return await self._linked_scopes(
                workspace_id, decode(msg.data, edges_pb2.MemoriesLinked)
            )
        raise Poison(f"bulletin does not handle {msg.subject}")

    async def _linked_scopes(
        self, workspace_id: str, event: edges_pb2.MemoriesLinked
    ) -> list[tuple[str, ScopeRef]]:
        ends = sorted({end for edge in event.edges for end in (edge.src_id, edge.dst_id)})
        self._records.drop(workspace_id, ends)  # their edges changed
        records = await self._records.get_many(workspace_id, ends)
        return [(workspace_id, r.memory.scope_ref) for r in records.values()]
