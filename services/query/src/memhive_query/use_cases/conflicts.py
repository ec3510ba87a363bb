"""Write-time conflict detection (no LLM): what a new memory may duplicate or replace.

The new body's vector, computed once for the save, is searched in the vector lane
within the same workspace and scope (and product) and the caller's view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from memhive_domain.errors import InvalidInput, NotFound
from memhive_domain.ids import memory_id_or_not_found
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_domain.recall import MemoryFilter, view_of
from memhive_domain.scope_tree import ensure_writable
from memhive_domain.selection import is_selected
from memhive_domain.text import id_list_problems
from memhive_domain.time_range import instant
from memhive_ports import MemoryStore, VectorIndex

# Neighbours looked at per save: enough to list the near-duplicates an agent must judge.
NEIGHBOURS = 5
# An exact duplicate scores ~1.0 whatever the threshold; float noise must not hide it.
EXACT_FLOOR = 0.95
MAX_SUPERSEDES = 20


@dataclass(frozen=True, slots=True)
class Similar:
    memory: Memory
    similarity: float  # cosine of the two bodies' vectors


@dataclass(frozen=True, slots=True)
class Check:
    """What a save's search found: the memories to tell the caller of, and every hit at or
    above the threshold by id with its cosine (what the link classifier would link)."""

    similar: list[Similar]
    near: dict[str, float]
    complete: bool  # fewer hits than asked were that close: no other one in the scope is


@dataclass(frozen=True, slots=True)
class CheckedScope:
    """What a save's check vouches for on the bus (SaveMemory.near_duplicate_check and
    near_duplicates): no memory of its scope at or above `threshold` but `near_duplicates`."""

    threshold: float
    near_duplicates: dict[str, float]


class NearDuplicates(Exception):
    """The save was refused: memories this similar exist in its scope (HTTP 409)."""

    def __init__(self, similar: Sequence[Similar], threshold: float) -> None:
        self.similar = list(similar)
        ids = ", ".join(s.memory.id for s in self.similar)
        super().__init__(
            f"near-duplicates in this scope (cosine >= {threshold:g}): {ids}; nothing was "
            f"saved. If the new memory replaces them, retry with supersedes=[their ids]; if it "
            f"is genuinely different, retry with force=true."
        )


class ConflictCheck:
    def __init__(self, vector: VectorIndex, store: MemoryStore, threshold: float) -> None:
        self._vector, self._store, self._threshold = vector, store, threshold

    async def similar(
        self,
        principal: Principal,
        memory: Memory,
        vector: Sequence[float],
        *,
        exact_only: bool = False,
    ) -> list[Similar]:
        """Live, visible memories of the same scope at least as similar as the threshold
        (or exact duplicates), most similar first. `exact_only` (a save with force or
        supersedes reports no near-duplicates): exact duplicates alone, so the records of
        near ones are not read for nothing."""
        return (await self.check(principal, memory, vector, exact_only=exact_only)).similar

    async def check(
        self,
        principal: Principal,
        memory: Memory,
        vector: Sequence[float],
        *,
        exact_only: bool = False,
    ) -> Check:
        """`similar`'s memories, and the hits at or above the threshold (records not read)."""
        scope = _same_scope(principal, memory)
        floor = EXACT_FLOOR if exact_only else min(self._threshold, EXACT_FLOOR)
        hits = await self._vector.search(vector, scope, NEIGHBOURS)
        near = {h.memory_id: h.score for h in hits if h.score >= self._threshold}
        hits = [h for h in hits if h.score >= floor]
        records = await self._store.get_many(principal.workspace_id, [h.memory_id for h in hits])
        near_counts = not exact_only
        similar = [
            Similar(records[h.memory_id].memory, h.score)
            for h in hits
            if h.memory_id in records
            and is_selected(records[h.memory_id].memory, scope, memory.created_at)
            and (
                (near_counts and h.score >= self._threshold)
                or records[h.memory_id].memory.body == memory.body
            )
        ]
        return Check(similar, near, complete=len(near) < NEIGHBOURS)

    def covered(self, principal: Principal, memory: Memory, check: Check) -> CheckedScope | None:
        """What a save may carry on the bus when its search covered every memory the link
        classifier could link it to: a member's view of the node (a non-member's holds public
        memories only), at any moment (a memory that says when it happened is checked against
        that moment alone), every hit that close (fewer than asked). None: the classifier
        searches."""
        if not (principal.is_member and memory.occurred_at is None and check.complete):
            return None
        return CheckedScope(self._threshold, check.near)

    def refusal(self, similar: Sequence[Similar]) -> NearDuplicates:
        return NearDuplicates(similar, self._threshold)

    async def superseded(
        self, principal: Principal, memory_ids: Sequence[str], now: datetime
    ) -> list[Memory]:
        """The memories a save says it supersedes: each must exist and be visible (else 404),
        and its node writable (else 403): superseding changes its standing for every reader."""
        if problems := id_list_problems("supersedes", list(memory_ids), MAX_SUPERSEDES):
            raise InvalidInput(problems)
        ids = list(dict.fromkeys(memory_id_or_not_found(i) for i in memory_ids))
        records = await self._store.get_many(principal.workspace_id, ids)
        view = view_of(principal)
        for memory_id in ids:
            if memory_id not in records or not is_selected(records[memory_id].memory, view, now):
                raise NotFound("memory", memory_id)
        for memory_id in ids:
            ensure_writable(principal, records[memory_id].memory.scope_ref, "supersede")
        return [records[i].memory for i in ids]


def exact_duplicate(similar: Sequence[Similar], memory: Memory) -> Memory | None:
    """The body is already normalised by the domain, so equal text means the same memory."""
    return next((s.memory for s in similar if s.memory.body == memory.body), None)


def _same_scope(principal: Principal, memory: Memory) -> MemoryFilter:
    """Its node; and, for a memory that says when it happened, the same moment: the same
    words at another time are another occurrence ("the deploy failed" on Monday, on Friday)."""
    moment = memory.occurred_at
    return replace(
        view_of(principal),
        node=memory.scope_ref,
        live_at=memory.created_at,
        occurred=None if moment is None else instant(moment),
    )
