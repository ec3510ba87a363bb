"""Use case: everything the dashboard shows about one memory, through the REST use cases."""

from __future__ import annotations

from dataclasses import dataclass

from memhive_domain.edges import Edge, EdgeKind
from memhive_domain.errors import NotFound
from memhive_domain.memory import Memory
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


class ViewMemory:
    def __init__(
        self, reader: MemoryReader, edges: EdgeReader, revisions: MemoryRevisions, clock: Clock
    ) -> None:
        self._reader, self._edges, self._revisions = reader, edges, revisions
        self._clock = clock

    async def __call__(self, principal: Principal, memory_id: str) -> MemoryView:
        memory = await self._reader.get(principal, memory_id)
        edges = (await self._edges.edges_of(principal, memory.id))[:MAX_EDGES]
        neighbours = [
            Neighbour(e, m) for e in edges if (m := await self._other(principal, e, memory.id))
        ]
        return MemoryView(
            memory=memory,
            outgoing=[n for n in neighbours if n.edge.src_id == memory.id],
            incoming=[n for n in neighbours if n.edge.dst_id == memory.id],
            newer=await self._chain(principal, memory.id, newer=True),
            older=await self._chain(principal, memory.id, newer=False),
            revisions=await self._revisions(principal, memory.id),
            scores=score(memory, self._clock.now()),
        )

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
