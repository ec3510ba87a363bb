"""The log read back as activity: memory events and recalls of one workspace, newest first."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from memhive_domain.activity import ActivityEvent, ActivityKind, ActivityPosition


class ActivityReading(Protocol):
    """One bounded read. Iterating yields events newest first, each carrying in `resume`
    where a next read continues after it. The iteration ends when nothing older is left or
    when the read has examined as much of the log as one request may; `resume` then says
    where to continue (None: nothing older is left)."""

    def __aiter__(self) -> AsyncIterator[ActivityEvent]: ...

    @property
    def resume(self) -> ActivityPosition | None: ...


class ActivityLog(Protocol):
    def newest_first(
        self, workspace_id: str, kinds: frozenset[ActivityKind], start: ActivityPosition
    ) -> ActivityReading:
        """The workspace's events of these kinds, from `start` (exclusive) back."""
        ...
