"""Turning fused lane hits into the memories a recall returns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memhive_domain.fusion import FusedHit
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter

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


def importance_weight(importance: float, influence: float = DEFAULT_IMPORTANCE_INFLUENCE) -> float:
    return (1.0 - influence) + influence * importance


def is_selected(memory: Memory, memory_filter: MemoryFilter, now: datetime) -> bool:
    """The record is the truth: re-check what the lanes filtered, in case a lane lags."""
    f = memory_filter
    return (
        memory.workspace_id == f.workspace_id
        and memory.is_live(now)
        and not (f.public_only and memory.visibility.value != "public")
        and (f.scope is None or memory.scope is f.scope)
        and (f.product_id is None or memory.product_id == f.product_id)
        and (f.node is None or memory.scope_ref == f.node)
        and (f.view is None or f.view.admits(memory.scope_ref))
        and (f.kinds is None or memory.kind in f.kinds)
        and (f.tags is None or not f.tags.isdisjoint(memory.tags))
    )


def rank_recalled(
    hits: Sequence[FusedHit],
    records: Mapping[str, Memory],
    *,
    memory_filter: MemoryFilter,
    now: datetime,
    limit: int,
    importance_influence: float = DEFAULT_IMPORTANCE_INFLUENCE,
) -> list[RankedMemory]:
    """Drop what is gone, forgotten, expired or not visible; weight by importance; take limit."""
    ranked = [
        RankedMemory(
            memory=records[hit.memory_id],
            score=hit.score
            * importance_weight(records[hit.memory_id].importance, importance_influence),
            fused_score=hit.score,
            ranks=hit.ranks,
        )
        for hit in hits
        if hit.memory_id in records and is_selected(records[hit.memory_id], memory_filter, now)
    ]
    ranked.sort(key=lambda r: (-r.score, -r.memory.created_at.timestamp(), r.memory.id))
    return ranked[:limit]
