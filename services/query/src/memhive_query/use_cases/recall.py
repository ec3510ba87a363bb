"""Use case: hybrid recall. Both lanes concurrently with the filter pushed down, fused,
hydrated from the record, ranked, stale memories resolved to their successors (edges),
and the hits recorded off the hot path."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Mapping

from memhive.v1 import events_pb2
from memhive_contracts import subjects
from memhive_contracts.mapping import to_timestamp
from memhive_domain.fusion import FusionMethod, fuse
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.ranking import rank_recalled
from memhive_domain.recall import RecallQuery, SelectionRequest, plan_recall
from memhive_ports import Clock, Embedder, EventPublisher, LexicalIndex, MemoryStore, VectorIndex
from memhive_ports.lanes import LaneHit

from memhive_query.use_cases.supersession_resolver import RecalledMemory, SupersessionResolver

log = logging.getLogger(__name__)

VECTOR_LANE, LEXICAL_LANE = "vector", "lexical"


class RecallMemories:
    def __init__(
        self,
        store: MemoryStore,
        vector: VectorIndex,
        lexical: LexicalIndex,
        embedder: Embedder,
        publisher: EventPublisher,
        clock: Clock,
        *,
        lane_weights: Mapping[str, float],
        importance_influence: float,
        fusion: FusionMethod = FusionMethod.RELATIVE_SCORE,
    ) -> None:
        self._store, self._vector, self._lexical = store, vector, lexical
        self._embedder, self._publisher, self._clock = embedder, publisher, clock
        self._weights, self._influence = dict(lane_weights), importance_influence
        self._fusion = fusion
        self._supersession = SupersessionResolver(store, clock)
        self._background: set[asyncio.Task] = set()

    async def __call__(
        self,
        principal: Principal,
        text: str,
        selection: SelectionRequest,
        max_results: int | None,
        lanes: tuple[str, ...] = (VECTOR_LANE, LEXICAL_LANE),
        *,
        include_superseded: bool = False,
        record_hits: bool = True,
    ) -> list[RecalledMemory]:
        """`record_hits=False` for audits (the dashboard): a person browsing is not an agent
        recalling, so access statistics stay the agents'."""
        require(principal, Action.RECALL)
        now = self._clock.now()
        query = plan_recall(text, selection, max_results, principal=principal, now=now)
        lane_hits = await self._search_lanes(query, lanes)
        fused = fuse(
            self._fusion,
            {lane: [(h.memory_id, h.score) for h in hits] for lane, hits in lane_hits.items()},
            weights=self._weights,
        )
        records = await self._store.get_many(principal.workspace_id, [h.memory_id for h in fused])
        # Every candidate is ranked: resolution may drop stale ones, and the limit comes after.
        ranked = rank_recalled(
            fused,
            {i: s.memory for i, s in records.items()},
            memory_filter=query.filter,
            now=now,
            limit=len(fused),
            importance_influence=self._influence,
        )
        recalled = await self._supersession.resolve(
            principal, ranked, records, include_superseded=include_superseded
        )
        if record_hits:
            self._record_hits(principal, query.text, recalled[: query.limit])
        return recalled[: query.limit]

    async def _search_lanes(
        self, query: RecallQuery, lanes: tuple[str, ...]
    ) -> dict[str, list[LaneHit]]:
        searches = {}
        if VECTOR_LANE in lanes:
            searches[VECTOR_LANE] = self._vector_search(query)
        if LEXICAL_LANE in lanes:
            searches[LEXICAL_LANE] = self._lexical.search(
                query.text, query.filter, query.candidates_per_lane
            )
        results = await asyncio.gather(*searches.values())
        return dict(zip(searches, results, strict=True))

    async def _vector_search(self, query: RecallQuery) -> list[LaneHit]:
        vector = (await self._embedder.embed([query.text]))[0]
        return await self._vector.search(vector, query.filter, query.candidates_per_lane)

    def _record_hits(self, principal: Principal, text: str, ranked: list[RecalledMemory]) -> None:
        """Access statistics are folded later by ingest; the recall does not wait for the bus."""
        if not ranked:
            return
        event_id = str(uuid.uuid4())
        event = events_pb2.MemoriesRecalled(
            event_id=event_id,
            workspace_id=principal.workspace_id,
            principal_id=principal.user_id,
            query=text,
            memory_ids=[r.memory.id for r in ranked],
            occurred_at=to_timestamp(self._clock.now()),
        )
        subject = subjects.for_workspace(subjects.MEMORIES_RECALLED, principal.workspace_id)
        task = asyncio.create_task(self._publisher.publish(subject, event, msg_id=event_id))
        self._background.add(task)
        task.add_done_callback(self._recorded)

    def _recorded(self, task: asyncio.Task) -> None:
        self._background.discard(task)
        if not task.cancelled() and (failure := task.exception()) is not None:
            # Never fails the recall, which has answered; the access counts miss this one.
            log.warning("recording recall hits failed: %r", failure, exc_info=failure)

    async def drain(self) -> None:
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
