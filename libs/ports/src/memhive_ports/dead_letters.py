"""Dead letters: the messages a consumer gave up on, with the reason, for operators."""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True)
class DeadLetter:
    sequence: int  # in the dead-letter stream: what replay() takes
    consumer: str
    subject: str  # where the message was originally published
    reason: str
    deliveries: int
    payload: bytes
    time: datetime | None
    headers: Mapping[str, str]  # the original message's own headers, carried along


class DeadLetterReader(Protocol):
    async def list(
        self, consumer: str | None = None, limit: int = 100
    ) -> builtins.list[DeadLetter]:
        """Oldest first, at most `limit`; only those of `consumer` when given."""
        ...
