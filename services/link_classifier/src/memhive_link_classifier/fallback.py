"""The classifier without an LLM: links only what it is sure of, and never guesses more.

Near-identical text is surely related; whether one replaces or contradicts the other
cannot be read off a cosine, so this never proposes updates or contradicts.
"""

from __future__ import annotations

from collections.abc import Sequence

from memhive_domain.edges import EdgeKind
from memhive_domain.memory import Memory
from memhive_ports import EdgeProposal

from memhive_link_classifier.orientation import newer_first


class NearDuplicateClassifier:
    def __init__(self, threshold: float) -> None:
        self._threshold = threshold

    async def classify(
        self, new: Memory, neighbours: Sequence[tuple[Memory, float]]
    ) -> list[EdgeProposal]:
        return [
            _near_duplicate(new, neighbour, score)
            for neighbour, score in neighbours
            if score >= self._threshold
        ]


def _near_duplicate(new: Memory, neighbour: Memory, score: float) -> EdgeProposal:
    src, dst = newer_first(new, neighbour)
    rationale = f"near-duplicate text (cosine {score:.3f})"
    return EdgeProposal(src.id, dst.id, EdgeKind.RELATED_TO, min(score, 1.0), rationale)
