from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from memhive_domain.edges import Edge
from memhive_domain.memory import Memory


@dataclass(frozen=True, slots=True)
class StoredMemory:
    memory: Memory
    revision: int  # the store's own revision of this key, for checked writes
    last_command_id: str  # the command that produced this state: replays are recognised
    edges: tuple[Edge, ...] = ()  # every edge touching this memory, whichever end it is


class MemoryReader(Protocol):
    """The reading half of MemoryStore, for those that only read the record."""

    async def get(self, workspace_id: str, memory_id: str) -> StoredMemory | None: ...

    async def get_many(
        self, workspace_id: str, memory_ids: Sequence[str]
    ) -> dict[str, StoredMemory]: ...


class MemoryStore(Protocol):
    """The record: the current state of every memory, with revision-checked writes.

    Concurrent writers never clobber each other: a write whose expected revision is
    stale raises memhive_domain.errors.ConcurrentUpdate, and the caller re-reads.
    """

    async def get(self, workspace_id: str, memory_id: str) -> StoredMemory | None: ...

    async def get_many(
        self, workspace_id: str, memory_ids: Sequence[str]
    ) -> dict[str, StoredMemory]: ...

    async def create(self, memory: Memory, command_id: str) -> StoredMemory:
        """Raises ConcurrentUpdate when the key already exists."""
        ...

    async def replace(
        self,
        current: StoredMemory,
        memory: Memory,
        command_id: str,
        edges: tuple[Edge, ...] | None = None,
    ) -> StoredMemory:
        """Write `memory` only if the key is still at `current.revision`.

        edges: the memory's whole edge set after the write; None keeps `current.edges`.
        """
        ...

    async def purge(self, current: StoredMemory) -> None:
        """Remove the memory and every earlier revision of its record, only if the key is
        still at `current.revision` (else ConcurrentUpdate). Reads find nothing afterwards."""
        ...
