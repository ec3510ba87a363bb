"""Use case: propose edges between a newly indexed memory and its nearest neighbours.

The record decides, not the event: a memory forgotten or revised since it was indexed is
skipped (a newer MemoryIndexed follows a revision). Pairs that already share an edge are
not asked about again, so an agent's own `updates` is never second-guessed.

Records are read only when there is something to classify: the neighbours come from the
vector lane (the event's vector, its scope), those below `min_similarity` (what the
classifier cannot link: without an LLM, anything short of a near-duplicate) are dropped
first, and the new memory's record and the rest are read together, once. Most saves have
no near-duplicate, and cost no read at all.

Without an LLM a pull batch is linked as one: its memories' searches run side by side, the
records of all of them are read in one read per workspace, and their edges go out in one
LinkMemories per workspace, so a bulk load of near-duplicates costs ingest one command (one
read of the ends, one event) per batch rather than per memory.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from memhive.v1 import edges_pb2
from memhive_contracts import streams, subjects
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
from memhive_link_classifier.near_duplicate_groups import NearDuplicateGroups
from memhive_link_classifier.recent import Node, RecentlyIndexed, unit_vector

CLASSIFIER_NAME = "link-classifier"
# Edges in one LinkMemories from a batch: a command stays far below the bus's payload limit
# whatever the batch size (a memory proposes at most `neighbours` <= 50 edges).
MAX_BATCH_EDGES = 200

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
        """Link a batch's memories as one: each waits on the lane, not on the others; the
        records of those with a neighbour to classify are read once per workspace and their
        edges proposed in one command per workspace. Only without an LLM (its calls are
        spent in order). What was indexed lately is read and noted first, in order, so each
        memory sees the ones before it as it would one at a time. Raises the first failure
        once all the others are linked."""
        now = self._clock.now()
        recent = [self._recently_indexed(indexed) for indexed in batch]
        found = await asyncio.gather(
            *(self._candidates(i, r, now) for i, r in zip(batch, recent, strict=True)),
            return_exceptions=True,
        )
        failures = [f for f in found if isinstance(f, BaseException)]
        by_workspace: dict[str, list[tuple[IndexedMemory, dict[str, float]]]] = defaultdict(list)
        for indexed, scores in zip(batch, found, strict=True):
            if not isinstance(scores, BaseException) and scores:
                by_workspace[indexed.workspace_id].append((indexed, scores))
        outcomes = await asyncio.gather(
            *(self._link_together(group, now) for group in by_workspace.values()),
            return_exceptions=True,
        )
        failures += [o for o in outcomes if isinstance(o, BaseException)]
        if failures:
            raise failures[0]

    async def _link(
        self, indexed: IndexedMemory, recent: dict[str, float] | None
    ) -> list[EdgeProposal]:
        """recent: its neighbours among what was indexed since its save's check (None:
        search the lane)."""
        now = self._clock.now()
        scores = await self._candidates(indexed, recent, now)
        if not scores:
            return []
        found = await self._store.get_many(indexed.workspace_id, [indexed.memory_id, *scores])
        proposals = await self._proposals(indexed, scores, found, now, _groups(found))
        if proposals:
            await self._publish(f"{indexed.event_id}:link", indexed.workspace_id, proposals, now)
        return proposals

    async def _link_together(
        self, group: Sequence[tuple[IndexedMemory, dict[str, float]]], now: datetime
    ) -> None:
        """One workspace's memories of a batch: one read of every record they need, then
        their edges in as few commands as MAX_BATCH_EDGES allows."""
        workspace_id = group[0][0].workspace_id
        wanted = (m for indexed, scores in group for m in (indexed.memory_id, *scores))
        found = await self._store.get_many(workspace_id, list(dict.fromkeys(wanted)))
        groups = _groups(found)  # each memory's links join groups the next ones see
        proposed = [
            (indexed, await self._proposals(indexed, scores, found, now, groups))
            for indexed, scores in group
        ]
        for command in _commands([(i, p) for i, p in proposed if p]):
            event_ids = [indexed.event_id for indexed, _ in command]
            edges = [p for _, proposals in command for p in proposals]
            await self._publish(_command_id(event_ids), workspace_id, edges, now)

    async def _candidates(
        self, indexed: IndexedMemory, recent: dict[str, float] | None, now: datetime
    ) -> dict[str, float]:
        """Cosine by id of the neighbours the classifier could link, best first."""
        if recent is None:
            recent = await self._searched(indexed, now)
        return self._linkable(indexed, recent)

    async def _proposals(
        self,
        indexed: IndexedMemory,
        scores: dict[str, float],
        found: Mapping[str, StoredMemory],
        now: datetime,
        groups: NearDuplicateGroups,
    ) -> list[EdgeProposal]:
        """What the classifier proposes for it, as its record and its neighbours' stand,
        linked once to each group of near-duplicates (near_duplicate_groups.py)."""
        stored = found.get(indexed.memory_id)
        if stored is None or _outdated(stored, indexed, now):
            return []
        neighbours = _neighbours(stored, scores, found, now)[: self._k]
        if not neighbours:
            return []
        proposals = await self._classifier.classify(stored.memory, neighbours)
        return groups.fewest(indexed.memory_id, proposals)

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
        scores = self._recent.since(at, _node(indexed), unit, at_least=self._floor)
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
        self, command_id: str, workspace_id: str, proposals: list[EdgeProposal], now: datetime
    ) -> None:
        """command_id: the same for a redelivered event or batch, which the bus then drops."""
        command = edges_pb2.LinkMemories(
            command_id=command_id,
            workspace_id=workspace_id,
            edges=[_edge(p) for p in proposals],
            requested_by=CLASSIFIER_NAME,
            requested_at=to_timestamp(now),
        )
        subject = subjects.for_workspace(subjects.LINK_MEMORIES, workspace_id)
        await self._publisher.publish(subject, command, msg_id=command_id)
        for p in proposals:
            self._metrics.edges_proposed.add(1, {"kind": p.kind.value})


Proposed = list[tuple[IndexedMemory, list[EdgeProposal]]]


def _commands(proposed: Proposed) -> list[Proposed]:
    """A batch's proposals in commands of at most MAX_BATCH_EDGES edges, a memory's together."""
    commands: list[Proposed] = []
    size = MAX_BATCH_EDGES
    for indexed, proposals in proposed:
        if size + len(proposals) > MAX_BATCH_EDGES:
            commands.append([])
            size = 0
        commands[-1].append((indexed, proposals))
        size += len(proposals)
    return commands


def _command_id(event_ids: list[str]) -> str:
    """One event's command keeps the id it has one at a time; several events' is a digest
    of their ids, so the same batch delivered again proposes the same command, which the
    bus drops (the same events in another batch propose edges ingest finds already there)."""
    if len(event_ids) == 1:
        return f"{event_ids[0]}:link"
    return streams.batch_msg_id("links", event_ids)


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


def _groups(found: Mapping[str, StoredMemory]) -> NearDuplicateGroups:
    groups = NearDuplicateGroups()
    for stored in found.values():
        groups.learn(stored.edges)
    return groups


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
