from __future__ import annotations

from datetime import datetime
from typing import Protocol

from google.protobuf.message import Message


class CommandScheduler(Protocol):
    """Puts a command on the bus later: the bus holds the schedule, not a process's timer,
    so it survives restarts and fires once whichever replica is running."""

    async def schedule(self, key: str, target: str, message: Message, at: datetime) -> None:
        """Publish `message` on `target` at `at` (or at once if `at` has passed). `key` names
        the schedule: scheduling the same key again replaces the earlier one."""
        ...
