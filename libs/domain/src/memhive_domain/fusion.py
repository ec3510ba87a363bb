"""Fusing the ranked lists the recall lanes return into one ranking.

Two methods, chosen by setting:
- reciprocal rank fusion (RRF, k = 60): uses ranks only, robust to lanes whose scores are
  not comparable, but flat: rank 1 and rank 2 differ by under 2%, so any prior applied
  afterwards (importance) can override clear relevance.
- relative score fusion: each lane's scores min-max scaled over that lane's candidates
  (best 1, worst 0), then a weighted sum. It keeps how far apart the candidates are,
  which measured better on LoCoMo (bench.fusion_study, docs/benchmarks.md), and lets
  importance act as a prior rather than a verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

RRF_K = 60


class FusionMethod(StrEnum):
    RRF = "rrf"
    RELATIVE_SCORE = "relative_score"


@dataclass(frozen=True, slots=True)
class FusedHit:
    memory_id: str
    score: float
    ranks: Mapping[str, int] = field(default_factory=dict)  # lane -> 1-based rank
    lane_scores: Mapping[str, float] = field(default_factory=dict)  # lane -> its own score


def fuse_ranked_lists(
    lanes: Mapping[str, Sequence[str]],
    *,
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[FusedHit]:
    """score(d) = sum over lanes of weight / (k + rank); best first, ties by id for stability."""
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for lane, ids in lanes.items():
        weight = 1.0 if weights is None else weights.get(lane, 1.0)
        for rank, memory_id in enumerate(dict.fromkeys(ids), start=1):
            scores[memory_id] = scores.get(memory_id, 0.0) + weight / (k + rank)
            ranks.setdefault(memory_id, {})[lane] = rank
    return _ordered(scores, ranks)


def fuse_relative_scores(
    lanes: Mapping[str, Sequence[tuple[str, float]]],
    *,
    weights: Mapping[str, float] | None = None,
) -> list[FusedHit]:
    """score(d) = sum over lanes of weight * (score - lane's worst) / (lane's best - worst),
    divided by the total weight, so a memory first in every lane scores 1. A lane with one
    candidate (or all scores equal) gives each of them its full weight."""
    total_weight = sum((weights or {}).get(lane, 1.0) for lane in lanes) or 1.0
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for lane, hits in lanes.items():
        weight = (1.0 if weights is None else weights.get(lane, 1.0)) / total_weight
        unique = _first_of_each(hits)
        best = max((s for _, s in unique), default=0.0)
        worst = min((s for _, s in unique), default=0.0)
        for rank, (memory_id, score) in enumerate(unique, start=1):
            share = (score - worst) / (best - worst) if best > worst else 1.0
            scores[memory_id] = scores.get(memory_id, 0.0) + weight * share
            ranks.setdefault(memory_id, {})[lane] = rank
    return _ordered(scores, ranks, _raw_scores(lanes))


def fuse(
    method: FusionMethod,
    lanes: Mapping[str, Sequence[tuple[str, float]]],
    *,
    weights: Mapping[str, float] | None = None,
) -> list[FusedHit]:
    if method is FusionMethod.RRF:
        fused = fuse_ranked_lists(
            {lane: [i for i, _ in hits] for lane, hits in lanes.items()}, weights=weights
        )
        raw = _raw_scores(lanes)
        return [replace(h, lane_scores=raw.get(h.memory_id, {})) for h in fused]
    return fuse_relative_scores(lanes, weights=weights)


def _raw_scores(lanes: Mapping[str, Sequence[tuple[str, float]]]) -> dict[str, dict[str, float]]:
    """Each memory's own score in each lane that found it (its best, if listed twice)."""
    raw: dict[str, dict[str, float]] = {}
    for lane, hits in lanes.items():
        for memory_id, score in _first_of_each(hits):
            raw.setdefault(memory_id, {})[lane] = score
    return raw


def _first_of_each(hits: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """A lane lists each memory once, at its first (best) place, in the lane's own order."""
    first: dict[str, tuple[str, float]] = {}
    for memory_id, score in hits:
        first.setdefault(memory_id, (memory_id, score))
    return list(first.values())


def _ordered(
    scores: dict[str, float],
    ranks: dict[str, dict[str, int]],
    raw: Mapping[str, Mapping[str, float]] | None = None,
) -> list[FusedHit]:
    ordered = sorted(scores, key=lambda m: (-scores[m], m))
    return [FusedHit(m, scores[m], ranks[m], (raw or {}).get(m, {})) for m in ordered]
