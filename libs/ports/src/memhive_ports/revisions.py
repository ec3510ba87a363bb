from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from typing import Protocol

from memhive_domain.revisions import Revision


class RevisionLog(Protocol):
    """The changes the log announced for one memory (MemorySaved and MemoryForgotten).

    Returns them in log order, possibly with repeats of one revision (see
    memhive_domain.revisions.revision_history). `since` bounds the read: changes announced
    before it may be left out, so pass a moment safely before the memory was created.
    """

    async def changes(
        self, workspace_id: str, memory_id: str, since: datetime
    ) -> list[Revision]: ...


class WorkspaceHistory(Protocol):
    """Every change the log announced in one workspace, in log order (an export reads the
    history of all its memories in one pass instead of one scan per memory)."""

    def workspace_changes(self, workspace_id: str) -> AsyncIterator[Revision]: ...
