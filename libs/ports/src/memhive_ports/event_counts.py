from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol


class EventCounts(Protocol):
    """How many messages a stream holds on one subject from each moment on.

    `since(stream, subject, moments)` returns one count per moment: the messages published
    at or after it that the stream still holds (so bucket sizes are differences of counts).
    """

    async def since(self, stream: str, subject: str, moments: Sequence[datetime]) -> list[int]: ...
