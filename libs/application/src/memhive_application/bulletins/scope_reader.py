"""The live memories of one scope, with their edges: the inputs of its bulletins."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

from memhive_domain.bulletin import bulletin_fingerprint, next_expiry
from memhive_domain.bulletin_audience import Audience, shown_to
from memhive_domain.edges import Edge
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter
from memhive_domain.scopes import ScopeRef
from memhive_domain.supersession import superseded_ids, superseding_edges
from memhive_ports import LexicalIndex, MemoryReader

PAGE_SIZE = 500  # ids listed per lexical-lane page
READ_PAGE = 100  # records read and decoded between two turns of the event loop


@dataclass(frozen=True, slots=True)
class ScopeInputs:
    scope: ScopeRef
    memories: list[Memory]  # live in the scope at `read_at`
    # Per audience, decided over what that audience is shown: a public memory superseded
    # by a private one stays current for the public (a reader never loses a memory to a
    # successor it cannot see).
    superseded: dict[Audience, set[str]]
    read_at: datetime

    @property
    def fingerprint(self) -> str:
        """Over every input, so a change to any audience's supersession re-renders."""
        return bulletin_fingerprint(
            self.memories,
            self.superseded[Audience.MEMBERS],
            now=self.read_at,
            superseded_publicly=self.superseded[Audience.PUBLIC],
        )

    @property
    def next_expiry(self) -> datetime | None:
        return next_expiry(self.memories, self.read_at)


class ScopeReader:
    """Ids from the lexical lane (the filter pushed down, newest first, paged), then each
    record with its edges from the store: the record, not the lane, decides what is live."""

    def __init__(
        self, store: MemoryReader, lexical: LexicalIndex, *, max_memories: int = 2000
    ) -> None:
        self._store, self._lexical, self._max = store, lexical, max_memories

    async def read(self, workspace_id: str, scope: ScopeRef, now: datetime) -> ScopeInputs:
        ids = await self._ids(_filter(workspace_id, scope, now))
        memories: list[Memory] = []
        edges: dict[str, tuple[Edge, ...]] = {}
        # A page at a time, yielding between pages: in one go, decoding 2,000 records and
        # their edges held the event loop, and the recalls of a gateway in the same process
        # waited behind it.
        for start in range(0, len(ids), READ_PAGE):
            records = await self._store.get_many(workspace_id, ids[start : start + READ_PAGE])
            live = [r for r in records.values() if _in_scope(r.memory, scope, now)]
            memories += [r.memory for r in live]
            # Only what can make a memory stale: most records carry related_to links alone.
            edges.update({r.memory.id: held for r in live if (held := superseding_edges(r.edges))})
            await asyncio.sleep(0)
        superseded = {a: superseded_ids(shown_to(a, memories), edges, now) for a in Audience}
        return ScopeInputs(scope, memories, superseded, now)

    async def _ids(self, memory_filter: MemoryFilter) -> list[str]:
        ids: list[str] = []
        after = None
        while len(ids) < self._max:
            want = min(PAGE_SIZE, self._max - len(ids))
            page = await self._lexical.list_ids(memory_filter, after, want)
            ids += [p.memory_id for p in page]
            if len(page) < want:
                break
            after = page[-1]
        return ids


def _filter(workspace_id: str, scope: ScopeRef, now: datetime) -> MemoryFilter:
    return MemoryFilter(workspace_id, node=scope, live_at=now)


def _in_scope(memory: Memory, scope: ScopeRef, now: datetime) -> bool:
    return memory.scope_ref == scope and memory.is_live(now)
