"""Classifying how a new memory relates to its nearest neighbours."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from memhive_domain.edges import EdgeKind
from memhive_domain.memory import Memory


@dataclass(frozen=True, slots=True)
class EdgeProposal:
    """An edge the classifier would create: src -> dst, weight in [0, 1] (how sure it is)."""

    src_id: str
    dst_id: str
    kind: EdgeKind
    weight: float
    rationale: str


class LinkClassifier(Protocol):
    """Decides, for each neighbour of a new memory, updates / contradicts / related_to / none.

    `neighbours` are live memories of the new memory's workspace and scope, each with its
    cosine similarity to it, best first; the new memory is not among them. Returns only the
    edges to create ("none" leaves a pair out), each between the new memory and one neighbour.
    Raises when it cannot decide now (the caller retries later); never guesses instead.
    """

    async def classify(
        self, new: Memory, neighbours: Sequence[tuple[Memory, float]]
    ) -> list[EdgeProposal]: ...
