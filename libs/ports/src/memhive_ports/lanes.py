"""The two recall lanes. Both are projections of the record: rebuildable from the log."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from memhive_domain.listing import ListPosition
from memhive_domain.memory import Memory
from memhive_domain.recall import MemoryFilter

from memhive_ports.term_weights import DocumentTerms


@dataclass(frozen=True, slots=True)
class LaneHit:
    memory_id: str
    score: float


class VectorIndex(Protocol):
    """Nearest neighbours by cosine similarity (scores in [-1, 1], higher is more similar).

    Every method that reads applies the whole MemoryFilter inside the engine's query
    (workspace, scope, product, kinds, tags, visibility, expiry), never after it.
    """

    async def ensure_ready(self) -> None:
        """Create what the index needs (collection, payload indexes); idempotent."""
        ...

    async def upsert(
        self,
        items: Sequence[tuple[Memory, Sequence[float]]],
        terms: Mapping[str, DocumentTerms] | None = None,
    ) -> None:
        """Insert or replace each memory with its vector, and its document terms when
        `terms` holds its id (None: no memory has any); durable when this returns. A memory
        written without terms keeps none from an earlier write (its body may have changed)."""
        ...

    async def delete(self, workspace_id: str, memory_ids: Sequence[str]) -> None:
        """Remove these memories; ids that are not there are ignored."""
        ...

    async def search(
        self, vector: Sequence[float], memory_filter: MemoryFilter, limit: int
    ) -> list[LaneHit]:
        """At most `limit` hits, best first."""
        ...

    async def present(self, workspace_id: str, memory_ids: Sequence[str]) -> set[str]:
        """Which of these ids the index holds for this workspace."""
        ...

    async def vectors(self, memory_ids: Sequence[str]) -> dict[str, list[float]]:
        """The stored vectors of those of these ids the index holds (as stored: cosine
        engines keep them normalised). For rebuilding lanes without embedding again."""
        ...

    async def document_terms(
        self, workspace_id: str, memory_ids: Sequence[str]
    ) -> dict[str, DocumentTerms]:
        """The document terms kept with those of these ids this workspace holds and that
        were written with terms (within their quantisation: weights move by at most 1/510
        of the memory's strongest)."""
        ...

    async def count(self, workspace_id: str | None = None) -> int: ...

    async def close(self) -> None: ...

    async def drop(self) -> None:
        """Delete the index itself (collection, files) and close it: for a lane generation
        no process reads any more. Dropping what is already gone is no error."""
        ...


class LexicalIndex(Protocol):
    """BM25 over memory bodies (scores: higher is more relevant, only comparable within a query).

    Applies the whole MemoryFilter inside the engine's query, like VectorIndex.
    """

    async def ensure_ready(self) -> None: ...

    async def upsert(self, memories: Sequence[Memory]) -> None:
        """Insert or replace; searchable when this returns, durable once `persisted()`
        completes (an engine may commit writes in groups)."""
        ...

    async def delete(self, workspace_id: str, memory_ids: Sequence[str]) -> None:
        """Remove these memories from this workspace; like upsert, visible at once and
        durable once `persisted()` completes."""
        ...

    def persisted(self) -> Awaitable[None]:
        """Completes once every write that returned before this call is durable (at once
        for an engine that commits each write); fails if the commit holding them failed.
        Whoever acknowledges a write to the log waits for it first."""
        ...

    async def search(self, text: str, memory_filter: MemoryFilter, limit: int) -> list[LaneHit]:
        """At most `limit` hits, best first. Any text is accepted: query syntax is not parsed."""
        ...

    async def list_ids(
        self, memory_filter: MemoryFilter, after: ListPosition | None, limit: int
    ) -> list[ListPosition]:
        """Memories matching the filter, newest first (created_at, then id, descending),
        starting strictly after `after` (keyset paging: no offset reaches the engine)."""
        ...

    async def present(self, workspace_id: str, memory_ids: Sequence[str]) -> set[str]: ...

    async def count(self, workspace_id: str | None = None) -> int: ...

    async def count_matching(self, memory_filter: MemoryFilter) -> int:
        """How many memories match the filter, counted by the engine (no ids fetched)."""
        ...

    async def close(self) -> None: ...

    async def drop(self) -> None:
        """Delete the index itself and close it, like VectorIndex.drop."""
        ...
