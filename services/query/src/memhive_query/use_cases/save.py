"""Use case: accept a memory, embed it once, check it against its scope's neighbours
(duplicates, near-duplicates, what it supersedes), put the command on the bus, optionally wait."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from memhive.v1 import commands_pb2
from memhive.v1 import memory_pb2 as pb
from memhive_contracts import subjects
from memhive_contracts.mapping import memory_to_pb, to_timestamp
from memhive_domain.edges import Edge, EdgeDraft, EdgeKind, propose_edge
from memhive_domain.errors import NotAllowed
from memhive_domain.ids import uuid7
from memhive_domain.memory import Memory, MemoryDraft, create_memory
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_ports import Clock, Embedder, EventPublisher

from memhive_query.event_waiter import EventWaiter
from memhive_query.use_cases.conflicts import ConflictCheck, exact_duplicate
from memhive_query.use_cases.link import EdgeCommands

Wait = Literal["accepted", "persisted", "indexed"]


@dataclass(frozen=True, slots=True)
class SaveOutcome:
    memory: Memory
    status: str  # the stage reached: accepted, persisted or indexed


class SaveMemory:
    """With `conflicts` and `edges` (the gateway always passes both): an exact duplicate in
    the same scope comes back as status "duplicate"; near-duplicates raise NearDuplicates
    unless `force` or `supersedes`; `supersedes` saves and links `updates` edges in one step.
    """

    def __init__(
        self,
        embedder: Embedder,
        publisher: EventPublisher,
        waiter: EventWaiter,
        clock: Clock,
        wait_timeout_s: float,
        *,
        conflicts: ConflictCheck | None = None,
        edges: EdgeCommands | None = None,
    ) -> None:
        self._embedder, self._publisher, self._waiter = embedder, publisher, waiter
        self._clock, self._timeout = clock, wait_timeout_s
        self._conflicts, self._edges = conflicts, edges

    async def __call__(
        self,
        principal: Principal,
        draft: MemoryDraft,
        wait: Wait,
        *,
        force: bool = False,
        supersedes: Sequence[str] = (),
    ) -> SaveOutcome:
        require(principal, Action.SAVE)
        now = self._clock.now()
        memory = create_memory(
            draft, memory_id=uuid7(int(now.timestamp() * 1000)), principal=principal, now=now
        )
        stale = await self._superseded(principal, supersedes, now)
        updates = [_updates(principal, memory, old, now) for old in stale]
        vector = (await self._embedder.embed([memory.body]))[0]
        if self._conflicts is not None:
            similar = await self._conflicts.similar(principal, memory, vector)
            if (existing := exact_duplicate(similar, memory)) is not None:
                return SaveOutcome(existing, "duplicate")
            if similar and not (force or updates):
                raise self._conflicts.refusal(similar)
        return await self.publish(principal, memory, vector, wait, updates)

    async def _superseded(
        self, principal: Principal, supersedes: Sequence[str], now: datetime
    ) -> list[Memory]:
        if not supersedes:
            return []
        if self._conflicts is None or self._edges is None:
            raise NotAllowed("this gateway cannot link memories: save without supersedes")
        return await self._conflicts.superseded(principal, supersedes, now)

    async def publish(
        self,
        principal: Principal,
        memory: Memory,
        vector: list[float],
        wait: Wait,
        edges: Sequence[Edge] = (),
    ) -> SaveOutcome:
        command_id = str(uuid.uuid4())
        command = commands_pb2.SaveMemory(
            command_id=command_id,
            memory=memory_to_pb(memory),
            embedding=pb.Embedding(model=self._embedder.model_name, values=vector),
            requested_by=principal.user_id,
            requested_at=to_timestamp(memory.created_at),
        )
        future = None if wait == "accepted" else self._waiter.expect(memory.id, wait)
        subject = subjects.for_workspace(subjects.SAVE_MEMORY, principal.workspace_id)
        await self._publisher.publish(subject, command, msg_id=command_id)
        linked = await self._link(principal, edges, wait)
        if future is None or not await self._waiter.wait(future, self._timeout) or not linked:
            return SaveOutcome(memory, "accepted")
        return SaveOutcome(memory, wait)

    async def _link(self, principal: Principal, edges: Sequence[Edge], wait: Wait) -> bool:
        """Publish the edges after the save (ingest applies them in that order); True when
        applied, or when there is nothing to wait for."""
        if not edges or self._edges is None:
            return True
        command = self._edges.command(principal, edges, edges[0].created_at)
        future = None if wait == "accepted" else self._edges.expect(command)
        await self._edges.publish(command)
        return future is None or await self._edges.applied(future)


def _updates(principal: Principal, new: Memory, old: Memory, now: datetime) -> Edge:
    draft = EdgeDraft(new.id, old.id, EdgeKind.UPDATES, rationale="saved as its replacement")
    return propose_edge(draft, created_by=principal.user_id, now=now)
