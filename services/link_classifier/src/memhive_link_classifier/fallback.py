"""The classifier without an LLM: links only what it is sure of, and never guesses more.

Near-identical text is surely related; whether one replaces or contradicts the other
cannot be read off a cosine, so this never proposes updates or contradicts.
"""

from __future__ import annotations

from collections.abc import Sequence

from memhive_domain.edges import EdgeKind
from memhive_domain.memory import Memory
from memhive_ports import EdgeProposal


class NearDuplicateClassifier:
    def __init__(self, threshold: float) -> None:
        self._threshold = threshold

    async def classify(
        self, new: Memory, neighbours: Sequence[tuple[Memory, float]]
    ) -> list[EdgeProposal]:
        return [
            EdgeProposal(
                new.id,
                neighbour.id,
                EdgeKind.RELATED_TO,
                weight=min(score, 1.0),
                rationale=f"near-duplicate text (cosine {score:.3f})",
            )
            for neighbour, score in neighbours
            if score >= self._threshold
        ]
