"""Use case: a workspace member's read-only view of the dead letters of their workspace.

Dead letters are kept per consumer, not per workspace, so the view walks the stream back from
its newest message (at most SCAN_LIMIT of them) and keeps those whose original subject ends
with the caller's workspace id (every memhive subject does): the newest letters always show,
and `limit=10` reads little. Replaying stays an operator's job (`memhive dead-letters`).
"""

from __future__ import annotations

from memhive_contracts import subjects
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_ports.dead_letters import DeadLetter, DeadLetterReader

SCAN_LIMIT = 10_000
MAX_LETTERS = 1000
# A durable consumer's name: it becomes the last token of the dead-letter subject.
CONSUMER_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"


class WorkspaceDeadLetters:
    def __init__(self, letters: DeadLetterReader) -> None:
        self._letters = letters

    async def __call__(
        self, principal: Principal, consumer: str | None, limit: int
    ) -> list[DeadLetter]:
        require(principal, Action.LIST_DEAD_LETTERS)
        return await self._letters.newest(
            min(limit, MAX_LETTERS),
            consumer=consumer,
            keep=lambda d: subjects.workspace_of(d.subject) == principal.workspace_id,
            scan_limit=SCAN_LIMIT,
        )
