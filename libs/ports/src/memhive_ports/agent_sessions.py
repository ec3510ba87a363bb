from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

SessionKey = tuple[str, str, str]  # workspace, user, the agent's session id


class ShownInSessions(Protocol):
    """The memory ids each agent session was shown by its hooks, so that a prompt is not
    given again what its session already holds. Shared by every gateway replica; a session
    idle long enough is forgotten. Best effort: a write that fails is a memory shown twice,
    never a failed answer."""

    async def ids(self, key: SessionKey) -> list[str] | None:
        """What the session was shown, oldest first ([] for a session never shown anything);
        None when it cannot be known now (then nothing should be written over it)."""
        ...

    async def keep(self, key: SessionKey, memory_ids: Sequence[str]) -> None:
        """The session was shown these (the latest ones are kept when there are many)."""
        ...
