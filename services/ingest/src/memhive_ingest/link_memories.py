"""Use case: apply a LinkMemories command to the records of both ends, then announce it.

Each edge is written into the record of its src and of its dst, each write checked
against the revision just read. Re-applying an edge that is already there changes
nothing (domain add_edge), so a redelivered or replayed command writes nothing and
announces no edge. A bad edge never blocks the good ones of its command: they are
applied and announced first, then the command is dead-lettered naming the bad ones.
"""

from __future__ import annotations

from datetime import datetime

from memhive.v1 import edges_pb2
from memhive_contracts import subjects
from memhive_contracts.edge_mapping import edge_draft_from_pb, edge_to_pb
from memhive_contracts.mapping import from_timestamp
from memhive_contracts.requester_mapping import requester_of
from memhive_domain.edges import Edge, add_edge, ensure_linkable, propose_edge
from memhive_domain.errors import ConcurrentUpdate, InvalidInput, NotAllowed, NotFound
from memhive_domain.link_rights import link_refusal
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_ports import EventPublisher, MemoryStore
from memhive_ports.poison import Poison
from memhive_ports.store import StoredMemory

MAX_ATTEMPTS = 5


class LinkMemoriesHandler:
    def __init__(self, store: MemoryStore, publisher: EventPublisher) -> None:
        self._store, self._publisher = store, publisher

    async def __call__(self, workspace_id: str, command: edges_pb2.LinkMemories) -> None:
        when = from_timestamp(command.requested_at, command.HasField("requested_at"))
        if when is None:
            raise Poison("requested_at is required")
        changed: list[Edge] = []
        problems: list[str] = []
        requester = requester_of(workspace_id, command.requested_by, command)
        for index, message in enumerate(command.edges):
            try:
                edge = propose_edge(
                    edge_draft_from_pb(message), created_by=command.requested_by, now=when
                )
                applied = await self._apply(workspace_id, edge, when, requester)
                if applied is not None:
                    changed.append(applied)
            except (InvalidInput, NotFound, NotAllowed) as problem:
                problems.append(f"edge {index} ({message.src_id}->{message.dst_id}): {problem}")
        # Announced even when every edge was refused: a waiting gateway must learn the
        # outcome (and answer 409), not time out into a 202 for a link never applied.
        await self._announce(workspace_id, command, changed, problems)
        if problems:
            raise Poison("; ".join(problems))

    async def _apply(
        self, workspace_id: str, edge: Edge, when: datetime, requester: Principal | None
    ) -> Edge | None:
        """The edge as it now stands in the record, or None when both ends already had it.
        A requester that may not add it (requester_rights.link_refusal) adds nothing."""
        for _ in range(MAX_ATTEMPTS):
            ends = await self._store.get_many(workspace_id, [edge.src_id, edge.dst_id])
            src, dst = ends.get(edge.src_id), ends.get(edge.dst_id)
            if _holds(src, edge) and _holds(dst, edge):
                return None  # a redelivery or an unchanged proposal: nothing to write
            ensure_linkable(edge, _memory(src), _memory(dst), workspace_id=workspace_id, now=when)
            assert src is not None and dst is not None  # narrowed: ensure_linkable passed
            if requester is not None and (
                refused := link_refusal(requester, edge, src.memory, dst.memory)
            ):
                raise NotAllowed(refused)
            try:
                written = await self._write(src, edge)
                await self._write(dst, edge)
            except ConcurrentUpdate:
                continue  # someone wrote in between (another link, access counts): re-read
            return next(e for e in written.edges if e.key == edge.key)
        raise ConcurrentUpdate(f"edge {edge.src_id}->{edge.dst_id} kept changing; will retry")

    async def _write(self, stored: StoredMemory, edge: Edge) -> StoredMemory:
        edges = add_edge(stored.edges, edge)
        if edges is stored.edges:
            return stored
        # Edges do not change what the memory says: its revision and last command stay.
        return await self._store.replace(stored, stored.memory, stored.last_command_id, edges)

    async def _announce(
        self,
        workspace_id: str,
        command: edges_pb2.LinkMemories,
        edges: list[Edge],
        rejected: list[str],
    ) -> None:
        # Announced even with no edge, so a caller waiting on the command learns it was applied.
        event_id = f"{command.command_id}:linked"
        event = edges_pb2.MemoriesLinked(
            event_id=event_id,
            command_id=command.command_id,
            workspace_id=workspace_id,
            edges=[edge_to_pb(e) for e in edges],
            occurred_at=command.requested_at,
            rejected=rejected,
        )
        subject = subjects.for_workspace(subjects.MEMORIES_LINKED, workspace_id)
        await self._publisher.publish(subject, event, msg_id=event_id)


def _holds(stored: StoredMemory | None, edge: Edge) -> bool:
    return stored is not None and add_edge(stored.edges, edge) is stored.edges


def _memory(stored: StoredMemory | None) -> Memory | None:
    return None if stored is None else stored.memory
