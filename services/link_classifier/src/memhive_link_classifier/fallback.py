"""The classifier without an LLM: links only what it is sure of, and never guesses more.

Near-identical text is surely related; whether one replaces or contradicts the other
cannot be read off a cosine, so this never proposes updates or contradicts. Its threshold
is by default the save's own conflict threshold: a near-duplicate saved without the 409
(a save that did not wait for `indexed`, a forced one, a hook's) is linked to what it
duplicates, and the rationale says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from memhive_domain.edges import EdgeKind
from memhive_domain.memory import Memory
from memhive_ports import EdgeProposal

from memhive_link_classifier.orientation import newer_first

# How a near-duplicate link's rationale begins, whichever classifier proposed it.
NEAR_DUPLICATE = "near-duplicate text"


class NearDuplicateClassifier:
    def __init__(self, threshold: float) -> None:
        self._threshold = threshold

    async def classify(
        self, new: Memory, neighbours: Sequence[tuple[Memory, float]]
    ) -> list[EdgeProposal]:
        return [
            self.near_duplicate(new, neighbour, score)
            for neighbour, score in neighbours
            if score >= self._threshold
        ]

    @property
    def threshold(self) -> float:
        return self._threshold

    def near_duplicate(self, new: Memory, neighbour: Memory, score: float) -> EdgeProposal:
        src, dst = newer_first(new, neighbour)
        # To the rationale's 3 places: the pair's two memories, each linked from its own
        # search or the recent ring, propose the same edge rather than refresh it by a
        # float's last digits (a rewrite of both records and an event for nothing).
        weight = round(min(score, 1.0), 3)
        rationale = f"{NEAR_DUPLICATE} (cosine {weight:.3f} >= {self._threshold:g})"
        return EdgeProposal(src.id, dst.id, EdgeKind.RELATED_TO, weight, rationale)
