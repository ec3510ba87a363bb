"""How much the BM25 lane outweighs the vector lane, and the share a memory gains from its
neighbours, for each encoder: the stronger the vector lane, the less BM25 needs to outweigh
it. Measured on LoCoMo's public split over a grid, the middle of each encoder's plateau
(`bench.recall_variants`, docs/benchmarks.md "A stronger encoder")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from memhive_domain.neighbours import DEFAULT_NEIGHBOUR_SHARE


@dataclass(frozen=True, slots=True)
class LaneBalance:
    lexical_weight: float  # the vector lane weighs 1
    neighbour_share: float


# MiniLM (fp32 and int8 alike), and any encoder not measured.
DEFAULT = LaneBalance(lexical_weight=3.0, neighbour_share=DEFAULT_NEIGHBOUR_SHARE)
BALANCES: Mapping[str, LaneBalance] = {
    "all-mpnet-base-v2": LaneBalance(lexical_weight=1.25, neighbour_share=0.4),
}


def lane_balance_for(
    encoder: str, lexical_weight: float | None = None, neighbour_share: float | None = None
) -> LaneBalance:
    """The encoder's balance, but for what the settings name themselves (None: not named)."""
    own = BALANCES.get(encoder, DEFAULT)
    return LaneBalance(
        own.lexical_weight if lexical_weight is None else lexical_weight,
        own.neighbour_share if neighbour_share is None else neighbour_share,
    )
