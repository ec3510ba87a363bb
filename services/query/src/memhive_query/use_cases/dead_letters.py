"""Use case: a workspace member's read-only view of the dead letters of their workspace.

Dead letters are kept per consumer, not per workspace, so the view reads up to SCAN_LIMIT
of the oldest and keeps those whose original subject ends with the caller's workspace id
(every memhive subject does). Replaying stays an operator's job (`memhive dead-letters`).
"""

from __future__ import annotations

from memhive_contracts import subjects
from memhive_domain.errors import NotAllowed
from memhive_domain.principals import Principal
from memhive_ports.dead_letters import DeadLetter, DeadLetterReader

SCAN_LIMIT = 10_000


class WorkspaceDeadLetters:
    def __init__(self, letters: DeadLetterReader) -> None:
        self._letters = letters

    async def __call__(
        self, principal: Principal, consumer: str | None, limit: int
    ) -> list[DeadLetter]:
        if not principal.is_member:
            raise NotAllowed("dead letters are for workspace members only")
        scanned = await self._letters.list(consumer=consumer, limit=SCAN_LIMIT)
        mine = [d for d in scanned if subjects.workspace_of(d.subject) == principal.workspace_id]
        return mine[:limit]
