"""Recall's edge step: stale candidates give way to the memories that supersede them, as far
as the caller can see them (a successor it cannot read leaves the original current).

Successors are fetched from the record in rounds (one per step along a chain, at most
MAX_SUCCESSOR_ROUNDS), and only when some candidate has an edge at all: a recall over
memories without edges reads nothing more.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from memhive_domain.edges import Edge
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_domain.ranking import RankedMemory
from memhive_domain.scope_tree import tree_view
from memhive_domain.supersession import (
    MAX_SUCCESSOR_ROUNDS,
    ResolvedMemory,
    resolve_supersession,
    successor_ids_to_fetch,
    superseding_edges,
)
from memhive_ports import Clock, MemoryStore
from memhive_ports.store import StoredMemory


@dataclass(frozen=True, slots=True)
class RecalledMemory:
    """One recall result: a ranked memory, or a successor standing in for stale ones."""

    memory: Memory
    score: float
    fused_score: float
    ranks: Mapping[str, int] = field(default_factory=dict)
    replaces: tuple[str, ...] = ()
    superseded_by: str | None = None
    lane_scores: Mapping[str, float] = field(default_factory=dict)  # each lane's own score
    confidence: float = 0.0  # how likely it answers the query (confidence.py)


class SupersessionResolver:
    def __init__(self, store: MemoryStore, clock: Clock) -> None:
        self._store, self._clock = store, clock

    async def resolve(
        self,
        principal: Principal,
        ranked: Sequence[RankedMemory],
        records: Mapping[str, StoredMemory],
        *,
        include_superseded: bool,
    ) -> list[RecalledMemory]:
        edges_of = {r.memory.id: superseding_edges(records[r.memory.id].edges) for r in ranked}
        if not any(edges_of.values()):
            return [_plain(r) for r in ranked]
        view = tree_view(principal)

        def is_visible(m: Memory) -> bool:
            return (
                m.workspace_id == principal.workspace_id
                and principal.can_see(m.visibility)
                and view.admits(m.scope_ref)
            )

        known = await self._fetch_successors(principal.workspace_id, ranked, edges_of, is_visible)
        resolved = resolve_supersession(
            ranked,
            edges_of,
            known,
            now=self._clock.now(),
            is_visible=is_visible,
            include_superseded=include_superseded,
        )
        by_id = {r.memory.id: r for r in ranked}
        return [_recalled(r, by_id.get(r.memory.id)) for r in resolved]

    async def _fetch_successors(
        self,
        workspace_id: str,
        ranked: Sequence[RankedMemory],
        edges_of: dict[str, tuple[Edge, ...]],
        is_visible: Callable[[Memory], bool],
    ) -> dict[str, Memory]:
        """Adds each fetched successor's edges to edges_of; returns the successors."""
        known: dict[str, Memory] = {}
        tried: set[str] = set()
        for _ in range(MAX_SUCCESSOR_ROUNDS):
            missing = successor_ids_to_fetch(ranked, edges_of, known, is_visible) - tried
            if not missing:
                break
            tried |= missing
            for memory_id, stored in (
                await self._store.get_many(workspace_id, sorted(missing))
            ).items():
                known[memory_id] = stored.memory
                edges_of[memory_id] = superseding_edges(stored.edges)
        return known


def _plain(ranked: RankedMemory) -> RecalledMemory:
    return RecalledMemory(
        ranked.memory,
        ranked.score,
        ranked.fused_score,
        ranked.ranks,
        lane_scores=ranked.lane_scores,
    )


def _recalled(resolved: ResolvedMemory, ranked: RankedMemory | None) -> RecalledMemory:
    # A successor that was not a candidate itself has no lane ranks of its own.
    fused = ranked.fused_score if ranked is not None else resolved.score
    ranks = ranked.ranks if ranked is not None else {}
    return RecalledMemory(
        resolved.memory,
        resolved.score,
        fused,
        ranks,
        replaces=resolved.replaces,
        superseded_by=resolved.superseded_by,
        lane_scores=ranked.lane_scores if ranked is not None else {},
    )
