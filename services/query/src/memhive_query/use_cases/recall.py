"""Use case: hybrid recall. Both lanes concurrently with the filter pushed down, fused,
hydrated from the record, ranked, stale memories resolved to their successors (edges),
and the hits recorded off the hot path."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from memhive.v1 import events_pb2
from memhive_contracts import subjects
from memhive_contracts.mapping import to_timestamp
from memhive_domain.confidence import QueryWords, calibration_for
from memhive_domain.following import DEFAULT_FOLLOW_TOP, names_to_follow, with_followed
from memhive_domain.fusion import FusedHit, FusionMethod, fuse
from memhive_domain.lane_balance import lane_balance_for
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.query_time import DEFAULT_TIME_BOOST
from memhive_domain.ranking import AnswerFit, in_context, rank_recalled
from memhive_domain.recall import RecallQuery, SelectionRequest, plan_recall
from memhive_domain.selection import is_selected
from memhive_ports import (
    Clock,
    Embedder,
    EventPublisher,
    LexicalIndex,
    MemoryStore,
    Reranker,
    RetryLater,
    TermWeights,
    VectorIndex,
)
from memhive_ports.lanes import LaneHit
from memhive_ports.store import StoredMemory

from memhive_query.use_cases.rerank_scores import RerankScores
from memhive_query.use_cases.supersession_resolver import RecalledMemory, SupersessionResolver

log = logging.getLogger(__name__)

VECTOR_LANE, LEXICAL_LANE = "vector", "lexical"
RERANK_LANE = "rerank"  # the reranker's scores, fused as one more lane (off by default)


@dataclass(frozen=True, slots=True)
class Reranking:
    """An optional reranker over the best `candidates` fused hits, its scores fused as one
    more lane at `weight` (docs/architecture.md, "Recall"); with `terms`, candidates whose
    document terms the vector lane keeps are scored from them (rerank_scores.py)."""

    reranker: Reranker
    candidates: int = 50
    weight: float = 1.0
    terms: TermWeights | None = None


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
        lane_weights: Mapping[str, float | None],
        importance_influence: float,
        fusion: FusionMethod = FusionMethod.RELATIVE_SCORE,
        neighbour_share: float | None = None,
        time_boost: float = DEFAULT_TIME_BOOST,
        fit: AnswerFit = AnswerFit(),  # noqa: B008 (frozen)
        follow_top: int = DEFAULT_FOLLOW_TOP,
        reranking: Reranking | None = None,
    ) -> None:
        self._store, self._vector, self._lexical = store, vector, lexical
        self._embedder, self._publisher, self._clock = embedder, publisher, clock
        # The lexical weight and the neighbour share: None means the serving encoder's own.
        self._weights, self._influence = dict(lane_weights), importance_influence
        self._fusion = fusion
        self._neighbour_share, self._time_boost = neighbour_share, time_boost
        self._fit, self._follow_top = fit, follow_top
        self._reranking = reranking
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
        min_confidence: float | None = None,
    ) -> list[RecalledMemory]:
        """`record_hits=False` for audits (the dashboard): a person browsing is not an agent
        recalling, so access statistics stay the agents'."""
        require(principal, Action.RECALL)
        now = self._clock.now()
        query = plan_recall(
            text,
            selection,
            max_results,
            principal=principal,
            now=now,
            min_confidence=min_confidence,
        )
        reranked = self._rerank_scores(principal.workspace_id, query.text)
        try:
            fused, records, lane_hits = await self._candidates(
                principal, query, lanes, reranked, now
            )
        finally:
            if reranked is not None:
                reranked.close()
        memories = {i: s.memory for i, s in records.items()}
        # Every candidate is ranked: resolution may drop stale ones, and the limit comes after.
        ranked = rank_recalled(
            fused,
            memories,
            memory_filter=query.filter,
            now=now,
            limit=len(fused),
            importance_influence=self._influence,
        )
        recalled = await self._supersession.resolve(
            principal, ranked, records, include_superseded=include_superseded
        )
        recalled = self._confident(query, recalled, lane_hits.get(VECTOR_LANE, []))
        if record_hits:
            self._record_hits(principal, query.text, recalled)
        return recalled

    async def _candidates(
        self,
        principal: Principal,
        query: RecallQuery,
        lanes: tuple[str, ...],
        reranked: RerankScores | None,
        now: datetime,
    ) -> tuple[list[FusedHit], dict[str, StoredMemory], dict[str, list[LaneHit]]]:
        """The lanes' hits fused and ranked in context, following names; the reranker's
        query pass starts first, on the other core while the lanes search."""
        if reranked is not None:
            reranked.start()
        lane_hits, read = await self._search_lanes(principal.workspace_id, query, lanes)
        fused, records = await self._in_context(principal, query, lane_hits, read, reranked, now)
        if LEXICAL_LANE in lanes:
            fused, records = await self._follow_names(
                principal, query, lane_hits, fused, records, reranked, now
            )
        return fused, records, lane_hits

    async def _in_context(
        self,
        principal: Principal,
        query: RecallQuery,
        lane_hits: Mapping[str, list[LaneHit]],
        known: Mapping[str, StoredMemory],
        reranked: RerankScores | None,
        now: datetime,
    ) -> tuple[list[FusedHit], dict[str, StoredMemory]]:
        """The lanes fused, the candidates' records read (those not `known` yet), the
        reranker's opinion fused in when there is one, and the fused hits re-scored in
        context (`ranking.in_context`)."""
        pairs = {lane: [(h.memory_id, h.score) for h in hits] for lane, hits in lane_hits.items()}
        weights, neighbour_share = self._balance()
        fused = fuse(self._fusion, pairs, weights=weights)
        wanted = [h.memory_id for h in fused if h.memory_id not in known]
        records = {**known, **await self._store.get_many(principal.workspace_id, wanted)}
        if (rerank := self._reranking) is not None and reranked is not None:
            fused = await self._reranked(rerank, query, pairs, fused, records, reranked, now)
        in_context_hits = in_context(
            fused,
            {i: s.memory for i, s in records.items()},
            named_times=query.named_times,
            neighbour_share=neighbour_share,
            time_boost=self._time_boost,
            names=query.names,
            wants_time=query.wants_time,
            fit=self._fit,
        )
        return in_context_hits, records

    async def _follow_names(
        self,
        principal: Principal,
        query: RecallQuery,
        lane_hits: dict[str, list[LaneHit]],
        fused: list[FusedHit],
        records: dict[str, StoredMemory],
        reranked: RerankScores | None,
        now: datetime,
    ) -> tuple[list[FusedHit], dict[str, StoredMemory]]:
        """One more BM25 search for the names the best hits mention (`following.py`); what
        it finds joins the lexical lane's candidates, and the whole is ranked again. Only
        memories the caller may get count: a lane may still hold a forgotten one, whose
        names must not steer the answer."""
        said = {
            i: s.memory.names
            for i, s in records.items()
            if is_selected(s.memory, query.filter, now)
        }
        names = names_to_follow([h.memory_id for h in fused], said, query.names, self._follow_top)
        if not names or not lane_hits[LEXICAL_LANE]:
            return fused, records
        found = await self._lexical.search(" ".join(names), query.filter, query.candidates_per_lane)
        merged = with_followed(
            [(h.memory_id, h.score) for h in lane_hits[LEXICAL_LANE]],
            [(h.memory_id, h.score) for h in found],
        )
        lane_hits[LEXICAL_LANE] = [LaneHit(i, score) for i, score in merged]
        return await self._in_context(principal, query, lane_hits, records, reranked, now)

    async def _reranked(
        self,
        rerank: Reranking,
        query: RecallQuery,
        lanes: Mapping[str, list[tuple[str, float]]],
        fused: list[FusedHit],
        records: Mapping[str, StoredMemory],
        scores: RerankScores,
        now: datetime,
    ) -> list[FusedHit]:
        """The reranker's scores for the best `candidates` fused hits the caller may get
        (each scored once per recall), fused with the lanes as one more lane. A forgotten
        or hidden memory is never read to it."""
        best = {
            h.memory_id: records[h.memory_id].memory
            for h in fused[: rerank.candidates]
            if h.memory_id in records
            and is_selected(records[h.memory_id].memory, query.filter, now)
        }
        lane = sorted((await scores.of(best)).items(), key=lambda pair: -pair[1])
        weights = {**self._balance()[0], RERANK_LANE: rerank.weight}
        return fuse(self._fusion, {**lanes, RERANK_LANE: lane}, weights=weights)

    def _balance(self) -> tuple[dict[str, float], float]:
        """The lanes' weights and the neighbour share: those given, else the encoder's own
        (`lane_balance.py`), read per recall like its calibration, since a migration swaps
        the encoder that serves."""
        balance = lane_balance_for(
            self._embedder.model_name, self._weights.get(LEXICAL_LANE), self._neighbour_share
        )
        given = {lane: w for lane, w in self._weights.items() if w is not None}
        return {**given, LEXICAL_LANE: balance.lexical_weight}, balance.neighbour_share

    def _rerank_scores(self, workspace_id: str, text: str) -> RerankScores | None:
        if (rerank := self._reranking) is None:
            return None
        return RerankScores(rerank.reranker, rerank.terms, self._vector, workspace_id, text)

    def _confident(
        self, query: RecallQuery, recalled: list[RecalledMemory], vector_hits: list[LaneHit]
    ) -> list[RecalledMemory]:
        """Each result's confidence, by the calibration of the encoder whose cosines these
        are; those below the query's minimum left out; the limit. A memory the vector lane
        did not list is at most as similar as its last hit."""
        floor = min((h.score for h in vector_hits), default=0.0)
        words = QueryWords.of(query.text)
        calibration = calibration_for(self._embedder.model_name)
        kept: list[RecalledMemory] = []
        for r in recalled:
            if len(kept) == query.limit:
                break
            similarity = r.lane_scores.get(VECTOR_LANE, floor)
            sure = calibration.confidence(similarity, words.coverage(r.memory.body))
            if sure >= query.min_confidence:
                kept.append(replace(r, confidence=sure))
        return kept

    async def _search_lanes(
        self, workspace_id: str, query: RecallQuery, lanes: tuple[str, ...]
    ) -> tuple[dict[str, list[LaneHit]], dict[str, StoredMemory]]:
        """Both lanes at once, and the lexical candidates' records read while the query's
        encoder pass (which holds no GIL) still runs: that read leaves the critical path.
        Returns each lane's hits and the records read so far."""
        searches = {}
        if VECTOR_LANE in lanes:
            searches[VECTOR_LANE] = self._vector_search(query)
        if LEXICAL_LANE in lanes:
            searches[LEXICAL_LANE] = self._lexical_search(workspace_id, query)
        found = dict(zip(searches, await asyncio.gather(*searches.values()), strict=True))
        read: dict[str, StoredMemory] = {}
        if LEXICAL_LANE in found:  # in place, so the lanes keep their order for fusion
            found[LEXICAL_LANE], read = found[LEXICAL_LANE]
        return found, read

    async def _lexical_search(
        self, workspace_id: str, query: RecallQuery
    ) -> tuple[list[LaneHit], dict[str, StoredMemory]]:
        hits = await self._lexical.search(query.text, query.filter, query.candidates_per_lane)
        ids = [h.memory_id for h in hits]
        return hits, (await self._store.get_many(workspace_id, ids) if ids else {})

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
            # A bus or disk that heals by itself gets one line, anything else its traceback.
            trace = None if isinstance(failure, RetryLater) else failure
            log.warning("recording recall hits failed: %r", failure, exc_info=trace)

    async def drain(self) -> None:
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
