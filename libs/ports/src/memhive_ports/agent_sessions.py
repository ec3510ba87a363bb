from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

SessionKey = tuple[str, str, str]  # workspace, user, the agent's session id


class ShownInSessions(Protocol):
    """The memory ids each agent session was shown by its hooks, so that a prompt is not
    given again what its session already holds. Shared by every gateway replica; a session
    idle long enough is forgotten. Best effort: a write that fails is a memory shown twice,
    never a failed answer."""

    async def ids(self, key: SessionKey) -> set[str]: ...

    async def add(self, key: SessionKey, memory_ids: Iterable[str]) -> None: ...

    async def start_over(self, key: SessionKey, memory_ids: Iterable[str]) -> None:
        """A new context (a session started, cleared or compacted): only these were shown."""
        ...
