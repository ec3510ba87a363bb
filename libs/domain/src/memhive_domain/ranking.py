"""Turning fused lane hits into the memories a recall returns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memhive_domain.answer_fit import (
    DEFAULT_DATED_BOOST,
    DEFAULT_QUESTION_PENALTY,
    DEFAULT_SUBJECT_BOOST,
    favour_fitting,
)
from memhive_domain.fusion import FusedHit
from memhive_domain.memory import Memory
from memhive_domain.neighbours import DEFAULT_REPLY_SHARE, with_neighbour_context
from memhive_domain.query_time import favour_named_times
from memhive_domain.recall import MemoryFilter
from memhive_domain.selection import is_selected
from memhive_domain.sources import Source
from memhive_domain.time_range import TimeRange
from memhive_domain.trust import reliability_weight

# How strongly importance bends relevance: the weight is (1 - s) + s * importance.
# Fused RRF scores are flat (rank 1 and rank 10 differ by ~15%), so s = 1 (a raw
# product) would let importance override relevance outright; 0.3 keeps it a prior.
DEFAULT_IMPORTANCE_INFLUENCE = 0.3


@dataclass(frozen=True, slots=True)
class RankedMemory:
    memory: Memory
    score: float
    fused_score: float
    ranks: Mapping[str, int]
    lane_scores: Mapping[str, float] = field(default_factory=dict)


def importance_weight(importance: float, influence: float = DEFAULT_IMPORTANCE_INFLUENCE) -> float:
    return (1.0 - influence) + influence * importance


def in_context(
    hits: Sequence[FusedHit],
    records: Mapping[str, Memory],
    *,
    named_times: Sequence[TimeRange],
    neighbour_share: float,
    time_boost: float,
    names: frozenset[str] = frozenset(),
    wants_time: bool = False,
    fit: AnswerFit | None = None,
) -> list[FusedHit]:
    """Fused hits re-scored by what the lanes cannot see: neighbours that matched too
    (`neighbours.py`, a question lending its reply more), the times the query names and
    the memory states (`query_time.py`), and how each memory fits the question: about the
    people it names, stating a time it asks for, not itself a question (`answer_fit.py`).
    Only memories saved by agents and hooks have neighbours: upstream
    refs name entities (issue:41, issue:42 are two unrelated issues), not places in a
    thread."""
    fit = fit or AnswerFit()
    said = {i: m.names for i, m in records.items()}
    refs = {i: m.source_ref for i, m in records.items() if m.source is Source.AGENT}
    asking = frozenset(i for i in refs if said[i].asks)
    hits = with_neighbour_context(
        hits, refs, neighbour_share, asking=asking, reply_share=fit.reply_share
    )
    occurred = {i: m.occurred for i, m in records.items()}
    stated = {i: s.times for i, s in said.items()}
    hits = favour_named_times(hits, occurred, named_times, time_boost, stated)
    return favour_fitting(
        hits,
        said,
        names=names,
        wants_time=wants_time,
        subject_boost=fit.subject_boost,
        dated_boost=fit.dated_boost,
        question_penalty=fit.question_penalty,
    )


@dataclass(frozen=True, slots=True)
class AnswerFit:
    """The weights of issue 27's steps (measured in docs/benchmarks.md); zero turns one off."""

    reply_share: float = DEFAULT_REPLY_SHARE
    subject_boost: float = DEFAULT_SUBJECT_BOOST
    dated_boost: float = DEFAULT_DATED_BOOST
    question_penalty: float = DEFAULT_QUESTION_PENALTY


def rank_recalled(
    hits: Sequence[FusedHit],
    records: Mapping[str, Memory],
    *,
    memory_filter: MemoryFilter,
    now: datetime,
    limit: int,
    importance_influence: float = DEFAULT_IMPORTANCE_INFLUENCE,
) -> list[RankedMemory]:
    """Drop what is gone, forgotten, expired or not visible; weight by importance and by
    reliability (trust and staleness, `trust.py`); take limit."""
    ranked = [
        RankedMemory(
            memory=records[hit.memory_id],
            score=hit.score
            * importance_weight(records[hit.memory_id].importance, importance_influence)
            * reliability_weight(records[hit.memory_id], now),
            fused_score=hit.score,
            ranks=hit.ranks,
            lane_scores=hit.lane_scores,
        )
        for hit in hits
        if hit.memory_id in records and is_selected(records[hit.memory_id], memory_filter, now)
    ]
    ranked.sort(key=lambda r: (-r.score, -r.memory.created_at.timestamp(), r.memory.id))
    return ranked[:limit]
