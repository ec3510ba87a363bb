"""Use case: propose edges between a newly indexed memory and its nearest neighbours.

The record decides, not the event: a memory forgotten or revised since it was indexed is
skipped (a newer MemoryIndexed follows a revision). Pairs that already share an edge are
not asked about again, so an agent's own `updates` is never second-guessed.

Records are read only when there is something to classify: the neighbours come from the
vector lane (the event's vector, its scope), those below `min_similarity` (what the
classifier cannot link: without an LLM, anything short of a near-duplicate) are dropped
first, and the new memory's record and the rest are read together, once. Most saves have
no near-duplicate, and cost no read at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from memhive.v1 import edges_pb2
from memhive_contracts import subjects
from memhive_contracts.mapping import to_timestamp
from memhive_domain.edges import EdgeKind
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_domain.scopes import ScopeRef, Visibility
from memhive_ports import (
    Clock,
    EdgeProposal,
    EncodedVector,
    EventPublisher,
    LinkClassifier,
    MemoryStore,
    VectorIndex,
)
from memhive_ports.store import StoredMemory

from memhive_link_classifier.metrics import ClassifierMetrics
from memhive_link_classifier.recent import Node, RecentlyIndexed, unit_vector

CLASSIFIER_NAME = "link-classifier"

_KIND = {k: getattr(edges_pb2, f"EDGE_KIND_{k.name}") for k in EdgeKind}


@dataclass(frozen=True, slots=True)
class IndexedMemory:
    event_id: str
    workspace_id: str
    memory_id: str
    revision: int
    vector: Sequence[float]
    scope: ScopeRef  # where its neighbours are looked for (the event's; the record decides)
    body: str = ""  # the event's body: a lane of another encoder embeds it again
    encoder: str = ""  # the vector's encoder, as the event names it ("": the lanes')
    # The gateway found no neighbour this similar just before the save (recent.py), at:
    near_duplicate_check: float | None = None
    checked_at: datetime | None = None
    # ...but these, by id with their cosine (a save with force or supersedes):
    near_duplicates: Mapping[str, float] = field(default_factory=dict)


class LinkNewMemory:
    def __init__(
        self,
        store: MemoryStore,
        vector_index: VectorIndex,
        classifier: LinkClassifier,
        publisher: EventPublisher,
        clock: Clock,
        metrics: ClassifierMetrics,
        *,
        neighbours: int,
        min_similarity: float | None = None,
    ) -> None:
        """min_similarity: the lowest cosine the classifier can link (None: any)."""
        self._store, self._index, self._classifier = store, vector_index, classifier
        self._publisher, self._clock, self._metrics = publisher, clock, metrics
        self._k, self._floor = neighbours, min_similarity
        # Without an LLM, what a save's check vouches for is not searched again (recent.py).
        self._recent = None if min_similarity is None else RecentlyIndexed(clock)

    async def __call__(self, indexed: IndexedMemory) -> list[EdgeProposal]:
        return await self._link(indexed, self._recently_indexed(indexed))

    async def side_by_side(self, batch: Sequence[IndexedMemory]) -> None:
        """Link a batch's memories at once: each waits on the lane, the store and the bus,
        not on the others. Only without an LLM (its calls are spent in order). What was
        indexed lately is read and noted first, in order, so each memory sees the ones
        before it as it would one at a time. Raises the first failure once all are done."""
        recent = [self._recently_indexed(indexed) for indexed in batch]
        outcomes = await asyncio.gather(
            *(self._link(i, r) for i, r in zip(batch, recent, strict=True)),
            return_exceptions=True,
        )
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome

    async def _link(
        self, indexed: IndexedMemory, recent: dict[str, float] | None
    ) -> list[EdgeProposal]:
        """recent: its neighbours among what was indexed since its save's check (None:
        search the lane)."""
        now = self._clock.now()
        if recent is None:
            recent = await self._searched(indexed, now)
        scores = self._linkable(indexed, recent)
        if not scores:
            return []
        found = await self._store.get_many(indexed.workspace_id, [indexed.memory_id, *scores])
        stored = found.get(indexed.memory_id)
        if stored is None or _outdated(stored, indexed, now):
            return []
        neighbours = _neighbours(stored, scores, found, now)[: self._k]
        proposals = await self._classifier.classify(stored.memory, neighbours) if neighbours else []
        if proposals:
            await self._publish(indexed, proposals, now)
        return proposals

    def _recently_indexed(self, indexed: IndexedMemory) -> dict[str, float] | None:
        """Its neighbours by cosine among what this process saw since its save's check,
        or None (search the lane); either way it is noted as seen."""
        unit = None if self._recent is None else unit_vector(indexed.vector)
        scores = self._since_check(indexed, unit)
        if self._recent is not None:
            self._recent.add(_node(indexed), indexed.memory_id, unit)
        return scores

    def _linkable(self, indexed: IndexedMemory, scores: dict[str, float]) -> dict[str, float]:
        """Cosine by id of the nearest memories the classifier could link, best first."""
        ranked = sorted(scores.items(), key=lambda item: -item[1])
        return {
            memory_id: score
            for memory_id, score in ranked
            if memory_id != indexed.memory_id and (self._floor is None or score >= self._floor)
        }

    def _since_check(
        self, indexed: IndexedMemory, unit: np.ndarray | None
    ) -> dict[str, float] | None:
        """A save checked at or below the classifier's own threshold: what the check found
        and what was indexed since it, which can be new (recent.py). None: search the lane."""
        checked, at = indexed.near_duplicate_check, indexed.checked_at
        if self._recent is None or self._floor is None or checked is None or at is None:
            return None
        if checked > self._floor:
            return None
        scores = self._recent.since(at, _node(indexed), unit)
        if scores is None:
            return None
        self._metrics.searches_skipped.add(1)
        return {**indexed.near_duplicates, **scores}

    async def _searched(self, indexed: IndexedMemory, now: datetime) -> dict[str, float]:
        same_scope = MemoryFilter(indexed.workspace_id, node=indexed.scope, live_at=now)
        vector = indexed.vector
        if indexed.encoder:  # a lane of another encoder embeds the body again (encoder_match)
            vector = EncodedVector(vector, indexed.encoder, indexed.body or None)
        hits = await self._index.search(vector, same_scope, self._k + 1)
        return {h.memory_id: h.score for h in hits}

    async def _publish(
        self, indexed: IndexedMemory, proposals: list[EdgeProposal], now: datetime
    ) -> None:
        command_id = f"{indexed.event_id}:link"  # a redelivered event proposes the same command
        command = edges_pb2.LinkMemories(
            command_id=command_id,
            workspace_id=indexed.workspace_id,
            edges=[_edge(p) for p in proposals],
            requested_by=CLASSIFIER_NAME,
            requested_at=to_timestamp(now),
        )
        subject = subjects.for_workspace(subjects.LINK_MEMORIES, indexed.workspace_id)
        await self._publisher.publish(subject, command, msg_id=command_id)
        for p in proposals:
            self._metrics.edges_proposed.add(1, {"kind": p.kind.value})


def _neighbours(
    stored: StoredMemory, scores: dict[str, float], found: dict[str, StoredMemory], now: datetime
) -> list[tuple[Memory, float]]:
    """Live neighbours it may link to and is not linked to yet, most similar first."""
    new = stored.memory
    linked = {e.other_end(new.id) for e in stored.edges}
    return [
        (found[i].memory, score)
        for i, score in scores.items()
        if i in found
        and i not in linked
        and found[i].memory.is_live(now)
        and _may_link(new, found[i].memory)
    ]


def _node(indexed: IndexedMemory) -> Node:
    return (indexed.workspace_id, indexed.scope, indexed.encoder)


def _outdated(stored: StoredMemory, indexed: IndexedMemory, now: datetime) -> bool:
    return not stored.memory.is_live(now) or stored.memory.revision > indexed.revision


def _may_link(new: Memory, neighbour: Memory) -> bool:
    """An edge shows each end's id to whoever sees the other: never across private memories
    of different authors."""
    both_public = Visibility.PRIVATE not in (new.visibility, neighbour.visibility)
    return both_public or new.created_by == neighbour.created_by


def _edge(proposal: EdgeProposal) -> edges_pb2.Edge:
    return edges_pb2.Edge(
        src_id=proposal.src_id,
        dst_id=proposal.dst_id,
        kind=_KIND[proposal.kind],
        weight=proposal.weight,
        created_by=CLASSIFIER_NAME,
        creator_kind=edges_pb2.CREATOR_KIND_CLASSIFIER,
        rationale=proposal.rationale,
    )
