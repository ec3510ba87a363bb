"""Thin subscriber: which scopes each memory event changed, handed to the scheduler, and
which records it changed, dropped from the bulletin's copies first.

It follows MemoryIndexed (alone, or several in a MemoriesIndexed), not MemorySaved: the
bulletin reads a scope's ids from the lexical lane, so a scope is complete only once its
new memory is indexed there, and every MemorySaved is followed by a MemoryIndexed (or,
forgotten meanwhile, a MemoryForgotten).
One delivery per save instead of two. A MemorySaved delivered by a durable still
subscribed to it is handled the same way, except that its copy is never kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memhive.v1 import edges_pb2, events_pb2
from memhive_contracts import subjects
from memhive_contracts.codec import decode
from memhive_contracts.edge_mapping import edge_from_pb
from memhive_contracts.mapping import memory_from_pb
from memhive_domain.edges import demoted_ends
from memhive_domain.scopes import ScopeRef
from memhive_ports.poison import Poison
from memhive_telemetry.propagation import TraceCause, cause_of
from nats.aio.msg import Msg

from memhive_bulletin.record_cache import EventFreshRecords
from memhive_bulletin.scheduler import BulletinScheduler

MEMORY_EVENTS = {
    subjects.MEMORY_SAVED: events_pb2.MemorySaved,
    subjects.MEMORY_INDEXED: events_pb2.MemoryIndexed,
    subjects.MEMORY_FORGOTTEN: events_pb2.MemoryForgotten,
}
EVENT_SUBJECTS = (
    subjects.MEMORY_INDEXED,
    subjects.MEMORIES_INDEXED,
    subjects.MEMORY_FORGOTTEN,
    subjects.MEMORIES_LINKED,
)


class ScopeChangeSubscriber:
    def __init__(self, scheduler: BulletinScheduler, records: EventFreshRecords) -> None:
        self._scheduler, self._records = scheduler, records

    async def handle_batch(self, msgs: Sequence[Msg]) -> None:
        # Each scope with the trace of every message that changed it (a batch mixes saves).
        changed: dict[tuple[str, ScopeRef], list[TraceCause]] = {}
        for msg in msgs:
            cause = cause_of(msg.headers)
            for scope_id in await self._scopes_of(msg):
                changed.setdefault(scope_id, []).extend([cause] if cause else [])
        for (workspace_id, scope), causes in sorted(changed.items(), key=_by_scope):
            self._scheduler.mark_changed(workspace_id, scope, causes)

    async def _scopes_of(self, msg: Msg) -> Iterable[tuple[str, ScopeRef]]:
        prefix, workspace_id = msg.subject.rsplit(".", 1)
        if prefix in MEMORY_EVENTS:
            memory = memory_from_pb(decode(msg.data, MEMORY_EVENTS[prefix]).memory)
            if prefix == subjects.MEMORY_INDEXED:
                self._records.keep_announced(memory)  # a new memory's record, unread
            else:
                self._records.drop(memory.workspace_id, [memory.id])
            return [(memory.workspace_id, memory.scope_ref)]
        if prefix == subjects.MEMORIES_INDEXED:
            together = decode(msg.data, events_pb2.MemoriesIndexed).indexed
            memories = [memory_from_pb(event.memory) for event in together]
            for memory in memories:
                self._records.keep_announced(memory)  # as for a lone MemoryIndexed
            return list(dict.fromkeys((m.workspace_id, m.scope_ref) for m in memories))
        if prefix == subjects.MEMORIES_LINKED:
            return await self._linked_scopes(
                workspace_id, decode(msg.data, edges_pb2.MemoriesLinked)
            )
        raise Poison(f"bulletin does not handle {msg.subject}")

    async def _linked_scopes(
        self, workspace_id: str, event: edges_pb2.MemoriesLinked
    ) -> list[tuple[str, ScopeRef]]:
        # A bulletin shows memories and which are superseded, not their links: only an edge
        # that can make an end stale changes one. The classifier's related_to links (most of
        # them) change none, and the copies of their ends stay good for what a bulletin reads.
        edges = [edge for edge in event.edges if _changes_standing(edge)]
        ends = sorted({end for edge in edges for end in (edge.src_id, edge.dst_id)})
        # Their scopes, read only where not known: a near-duplicate is linked again and
        # again, and the refresh re-reads what it shows anyway.
        scopes = self._records.known_scopes(workspace_id, ends)
        self._records.drop(workspace_id, ends)  # their edges changed
        unknown = [end for end in ends if end not in scopes]
        if unknown:
            read = await self._records.get_many(workspace_id, unknown)
            scopes |= {m: r.memory.scope_ref for m, r in read.items()}
        return [(workspace_id, scope) for scope in dict.fromkeys(scopes.values())]


def _changes_standing(edge: edges_pb2.Edge) -> bool:
    """Whether the edge can make an end stale (`demoted_ends`); a kind this version does not
    know is taken to."""
    try:
        return bool(demoted_ends(edge_from_pb(edge)))
    except (KeyError, ValueError):
        return True


def _by_scope(item: tuple[tuple[str, ScopeRef], list[TraceCause]]) -> tuple[str, str]:
    (workspace_id, scope), _ = item
    return workspace_id, scope.key
