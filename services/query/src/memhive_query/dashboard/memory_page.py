"""Use case: everything the dashboard shows about one memory, through the REST use cases.

Members also open an expired memory (an audit), and a forgotten one as a tombstone: who
forgot it, when, and its revision history, which the log keeps for audit. Anyone else, and
a memory that never was, gets the same "not found" as the API."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memhive_domain.edges import Edge, EdgeKind
from memhive_domain.errors import NotFound
from memhive_domain.memory import Memory
from memhive_domain.policy import Action, allows
from memhive_domain.principals import Principal
from memhive_domain.revisions import Revision
from memhive_domain.trust import TrustScores, score
from memhive_ports import Clock

from memhive_query.use_cases.link import EdgeReader
from memhive_query.use_cases.memories import MemoryReader
from memhive_query.use_cases.revisions import MemoryRevisions

# A supersession chain longer than this is cut (it is shown, not resolved).
MAX_CHAIN = 8
MAX_EDGES = 100


@dataclass(frozen=True, slots=True)
class Neighbour:
    edge: Edge
    memory: Memory


@dataclass(frozen=True, slots=True)
class MemoryView:
    memory: Memory
    outgoing: list[Neighbour]
    incoming: list[Neighbour]
    newer: list[Memory]  # what superseded it, nearest first
    older: list[Memory]  # what it superseded, nearest first
    revisions: list[Revision]
    scores: TrustScores  # as of now, like the memory JSON of the API
    now: datetime  # the moment it was read (the page tells expired from live by it)


@dataclass(frozen=True, slots=True)
class Tombstone:
    memory: Memory  # as it was forgotten
    forgotten_by: str  # "" when the log does not say
    revisions: list[Revision]


class ViewMemory:
    def __init__(
        self, reader: MemoryReader, edges: EdgeReader, revisions: MemoryRevisions, clock: Clock
    ) -> None:
        self._reader, self._edges, self._revisions = reader, edges, revisions
        self._clock = clock

    async def __call__(self, principal: Principal, memory_id: str) -> MemoryView | Tombstone:
        try:
            memory = await self._reader.get(
                principal, memory_id, include_expired=allows(principal, Action.READ_EXPIRED)
            )
        except NotFound:
            return await self._tombstone(principal, memory_id)
        edges = (await self._edges.edges_of(principal, memory.id))[:MAX_EDGES]
        neighbours = [
            Neighbour(e, m) for e in edges if (m := await self._other(principal, e, memory.id))
        ]
        now = self._clock.now()
        return MemoryView(
            memory=memory,
            outgoing=[n for n in neighbours if n.edge.src_id == memory.id],
            incoming=[n for n in neighbours if n.edge.dst_id == memory.id],
            newer=await self._chain(principal, memory.id, newer=True),
            older=await self._chain(principal, memory.id, newer=False),
            revisions=await self._revisions(principal, memory.id),
            scores=score(memory, now),
            now=now,
        )

    async def _tombstone(self, principal: Principal, memory_id: str) -> Tombstone:
        """MemoryRevisions shows members the history of what they may read, forgotten or
        not (NotFound otherwise); a history that ends in a forget is a tombstone."""
        revisions = await self._revisions(principal, memory_id)
        last = revisions[-1] if revisions else None
        if not (principal.is_member and last is not None and last.change == "forgotten"):
            raise NotFound("memory", memory_id)
        return Tombstone(last.memory, last.requested_by, revisions)

    async def _other(self, principal: Principal, edge: Edge, memory_id: str) -> Memory | None:
        try:
            return await self._reader.get(principal, edge.other_end(memory_id))
        except NotFound:
            return None  # forgotten between the two reads

    async def _chain(self, principal: Principal, memory_id: str, *, newer: bool) -> list[Memory]:
        """Follows `updates` edges (newer → older) one way, first edge at each step."""
        chain: list[Memory] = []
        seen, current = {memory_id}, memory_id
        for _ in range(MAX_CHAIN):
            step = next(
                (
                    e
                    for e in await self._edges.edges_of(principal, current)
                    if e.kind is EdgeKind.UPDATES
                    and (e.dst_id == current if newer else e.src_id == current)
                ),
                None,
            )
            if step is None:
                break
            current = step.other_end(current)
            if current in seen:
                break
            seen.add(current)
            try:
                chain.append(await self._reader.get(principal, current))
            except NotFound:
                break
        return chain
