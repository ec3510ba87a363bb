"""Use case: a memory's revision history, read from the log, confined to the caller's view.

Members see the history of every memory of their workspace, forgotten or expired ones too
(forget hides a memory from recall; its history stays auditable). Anyone else sees only
what GET shows them: a live public memory.
"""

from __future__ import annotations

from datetime import timedelta

from memhive_domain.errors import NotFound
from memhive_domain.ids import memory_id_or_not_found
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_domain.recall import MemoryFilter
from memhive_domain.revisions import Revision, revision_history
from memhive_domain.selection import is_selected
from memhive_ports import Clock, MemoryStore
from memhive_ports.revisions import RevisionLog

# A memory's creation time comes from the writer's clock (the gateway's, or the upstream
# source's capped at receipt); the log's timestamps from the server's. Read from a little
# earlier so clock skew between them cannot hide the first revision.
CLOCK_SLACK = timedelta(minutes=10)


class MemoryRevisions:
    def __init__(self, store: MemoryStore, log: RevisionLog, clock: Clock) -> None:
        self._store, self._log, self._clock = store, log, clock

    async def __call__(self, principal: Principal, memory_id: str) -> list[Revision]:
        stored = await self._store.get(principal.workspace_id, memory_id_or_not_found(memory_id))
        if stored is None or not self._may_see(principal, stored.memory):
            raise NotFound("memory", memory_id)
        memory = stored.memory
        since = memory.created_at - CLOCK_SLACK
        return revision_history(await self._log.changes(memory.workspace_id, memory.id, since))

    def _may_see(self, principal: Principal, memory: Memory) -> bool:
        if principal.is_member:
            return True  # the store key already confines it to the caller's workspace
        public_live = MemoryFilter(principal.workspace_id, public_only=True)
        return is_selected(memory, public_live, self._clock.now())
