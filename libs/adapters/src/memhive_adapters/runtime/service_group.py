"""A set of background services started and stopped together (consumers, schedulers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Startable(Protocol):
    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class ServiceGroup:
    """Starts in order, stops in reverse order, so consumers stop before what they feed."""

    def __init__(self, members: Sequence[Startable]) -> None:
        self._members = list(members)

    async def start(self) -> None:
        for member in self._members:
            await member.start()

    async def stop(self) -> None:
        for member in reversed(self._members):
            await member.stop()
