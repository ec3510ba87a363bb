"""Key/value memory: JSON values under keys at nodes of a workspace's scope tree."""

from __future__ import annotations

from typing import Protocol

from memhive_domain.kv import KvAddress, KvEntry, KvPage, KvWrite, Precondition
from memhive_domain.scopes import ScopeRef


class KeyValueStore(Protocol):
    """Entries by address. Expired entries read as absent, whether or not the backend has
    removed them yet. Every write checks its precondition atomically against the entry as it
    is when the write lands, and raises `RevisionMismatch` (memhive_domain.kv) when it does
    not hold, so concurrent writers never overwrite each other unknowingly. Revisions only
    increase and are never reused, also across a delete and a re-create."""

    async def get(self, address: KvAddress) -> KvEntry | None: ...

    async def put(self, write: KvWrite, updated_by: str) -> KvEntry:
        """Durable when this returns; the entry as written, with its new revision."""
        ...

    async def delete(self, address: KvAddress, precondition: Precondition) -> bool:
        """False when there was no live entry (nothing written)."""
        ...

    async def list(
        self, workspace_id: str, node: ScopeRef, after: int | None, limit: int
    ) -> KvPage:
        """The node's live entries in the order they were last written, oldest first,
        starting after revision `after`; at most `limit`."""
        ...
