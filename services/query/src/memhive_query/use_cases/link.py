"""Use cases on edges: link two memories, list a memory's edges. All confined to the caller's view.

A link is checked here first (so a caller gets 422/404/403 at once), then applied by
ingest from a LinkMemories command on the bus, which the request waits for. Linking writes
src's record, and an `updates` or `contradicts` edge changes the standing of the memory it
demotes: the caller must write every such end's node (`edges.written_ends`).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memhive.v1 import edges_pb2
from memhive_contracts import subjects
from memhive_contracts.edge_mapping import edge_to_pb
from memhive_contracts.mapping import to_timestamp
from memhive_contracts.requester_mapping import requester_to_pb
from memhive_domain.edges import (
    Edge,
    EdgeDraft,
    add_edge,
    ensure_linkable,
    propose_edge,
    written_ends,
)
from memhive_domain.errors import DomainError, InvalidInput, NotFound
from memhive_domain.ids import memory_id_or_not_found
from memhive_domain.memory import Memory
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.recall import view_of
from memhive_domain.scope_tree import can_read, ensure_writable
from memhive_domain.selection import is_selected
from memhive_ports import Clock, EventPublisher, MemoryStore
from memhive_ports.store import StoredMemory

from memhive_query.event_waiter import EventWaiter


class LinkRejected(DomainError):
    """Ingest refused the link (an end was forgotten or vanished after the check): HTTP 409."""


@dataclass(frozen=True, slots=True)
class LinkOutcome:
    edge: Edge
    status: str  # created (added or refreshed), unchanged, or accepted (not yet applied)


class EdgeCommands:
    """Puts LinkMemories commands on the bus and waits until ingest applied them."""

    def __init__(
        self, publisher: EventPublisher, waiter: EventWaiter, wait_timeout_s: float
    ) -> None:
        self._publisher, self._waiter, self._timeout = publisher, waiter, wait_timeout_s

    def command(
        self, principal: Principal, edges: Sequence[Edge], now: datetime
    ) -> edges_pb2.LinkMemories:
        """requested_at is `now`: ingest stamps new edges with it, as the caller was told."""
        return edges_pb2.LinkMemories(
            command_id=str(uuid.uuid4()),
            workspace_id=principal.workspace_id,
            edges=[edge_to_pb(e) for e in edges],
            requested_by=principal.user_id,
            requested_at=to_timestamp(now),
            requester=requester_to_pb(principal),
        )

    def expect(self, command: edges_pb2.LinkMemories):
        """Register before publishing, so the event cannot slip past."""
        return self._waiter.expect(command.command_id, "linked")

    async def publish(self, command: edges_pb2.LinkMemories) -> None:
        subject = subjects.for_workspace(subjects.LINK_MEMORIES, command.workspace_id)
        await self._publisher.publish(subject, command, msg_id=command.command_id)

    async def outcome(self, future) -> edges_pb2.MemoriesLinked | None:
        """Ingest's answer (edges applied, and any it refused), or None past the timeout."""
        return await self._waiter.event(future, self._timeout)

    async def applied(self, future) -> bool:
        event = await self.outcome(future)
        return event is not None and not event.rejected


class LinkMemories:
    def __init__(self, store: MemoryStore, commands: EdgeCommands, clock: Clock) -> None:
        self._store, self._commands, self._clock = store, commands, clock

    async def __call__(self, principal: Principal, draft: EdgeDraft) -> LinkOutcome:
        require(principal, Action.LINK)
        now = self._clock.now()
        edge = propose_edge(draft, created_by=principal.user_id, now=now)
        ends = await self._store.get_many(principal.workspace_id, [edge.src_id, edge.dst_id])
        src, dst = ends.get(edge.src_id), ends.get(edge.dst_id)
        for end in (src, dst):  # what the caller cannot read does not exist for it
            if end is not None and not _readable(principal, end.memory):
                raise NotFound("memory", end.memory.id)
        ensure_linkable(
            edge, _memory(src), _memory(dst), workspace_id=principal.workspace_id, now=now
        )
        assert src is not None and dst is not None  # narrowed: ensure_linkable passed
        for end in (src, dst):
            if end.memory.id in written_ends(edge):
                ensure_writable(principal, end.memory.scope_ref, f"link {edge.kind.value}")
        if (current := _already_there(src, edge)) is not None:
            return LinkOutcome(current, "unchanged")
        command = self._commands.command(principal, [edge], now)
        future = self._commands.expect(command)
        await self._commands.publish(command)
        event = await self._commands.outcome(future)
        if event is not None and event.rejected:
            raise LinkRejected("the link was not applied: " + "; ".join(event.rejected))
        if event is None:
            # Not applied yet: answer 202 only if ingest will still be able to apply it.
            await self._ensure_still_linkable(principal, edge)
        return LinkOutcome(_as_stored(src, edge), "created" if event else "accepted")

    async def _ensure_still_linkable(self, principal: Principal, edge: Edge) -> None:
        ends = await self._store.get_many(principal.workspace_id, [edge.src_id, edge.dst_id])
        try:
            ensure_linkable(
                edge,
                _memory(ends.get(edge.src_id)),
                _memory(ends.get(edge.dst_id)),
                workspace_id=principal.workspace_id,
                now=self._clock.now(),
            )
        except (InvalidInput, NotFound) as gone:
            raise LinkRejected(f"the link will not be applied: {gone}") from None


class EdgeReader:
    def __init__(self, store: MemoryStore, clock: Clock) -> None:
        self._store, self._clock = store, clock

    async def edges_of(self, principal: Principal, memory_id: str) -> list[Edge]:
        """A memory's edges, leaving out those whose other end the caller could not recall."""
        require(principal, Action.READ)
        now, view = self._clock.now(), view_of(principal)
        stored = await self._store.get(principal.workspace_id, memory_id_or_not_found(memory_id))
        if stored is None or not is_selected(stored.memory, view, now):
            raise NotFound("memory", memory_id)
        others = [e.other_end(stored.memory.id) for e in stored.edges]
        records = await self._store.get_many(principal.workspace_id, others)
        return [
            e
            for e, other in zip(stored.edges, others, strict=True)
            if other in records and is_selected(records[other].memory, view, now)
        ]


def _readable(principal: Principal, memory: Memory) -> bool:
    return principal.can_see(memory.visibility) and can_read(principal, memory.scope_ref)


def _already_there(stored: StoredMemory, edge: Edge) -> Edge | None:
    if add_edge(stored.edges, edge) is not stored.edges:
        return None
    return next(e for e in stored.edges if e.key == edge.key)


def _as_stored(src: StoredMemory, edge: Edge) -> Edge:
    """The edge as ingest writes it: a refreshed edge keeps when it was first created."""
    refreshed = add_edge(src.edges, edge)
    return next(e for e in refreshed if e.key == edge.key)


def _memory(stored: StoredMemory | None) -> Memory | None:
    return None if stored is None else stored.memory
