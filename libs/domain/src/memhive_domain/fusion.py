"""Reciprocal rank fusion of the ranked lists the recall lanes return."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

RRF_K = 60


@dataclass(frozen=True, slots=True)
class FusedHit:
    memory_id: str
    score: float
    ranks: Mapping[str, int] = field(default_factory=dict)  # lane -> 1-based rank


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
    ordered = sorted(scores, key=lambda m: (-scores[m], m))
    return [FusedHit(m, scores[m], ranks[m]) for m in ordered]
