"""Exactly one memory per normalised body and scope, even when identical saves race.

The lane-based duplicate check (conflicts.py) only sees what is already indexed. So a save
takes a deterministic id (`content_id`: workspace, scope, product, body) and the gateway
creates the record under it: the record's create-if-absent keeps one of any racing copies,
and the losers are answered with the winner. The create is the claim: a new body, by far
the common case, costs one KV write and no read; a slot that is taken is read once, to tell
a live copy (a duplicate) from a forgotten one (the next slot).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.ids import content_id
from memhive_domain.memory import Memory
from memhive_ports import LexicalIndex, MemoryStore
from memhive_ports.store import StoredMemory

from memhive_query.event_waiter import EventWaiter

# Slots tried before giving up on content ids (each earlier one held a forgotten copy).
MAX_ATTEMPTS = 8


@dataclass(frozen=True, slots=True)
class Recorded:
    """What the save's record create found: the record it wrote, or a live memory already
    holding the body (the save is a duplicate)."""

    created: StoredMemory | None
    existing: StoredMemory | None


class IdenticalSaves:
    def __init__(
        self, store: MemoryStore, waiter: EventWaiter, lexical: LexicalIndex | None = None
    ) -> None:
        self._store, self._waiter, self._lexical = store, waiter, lexical

    async def record(self, memory: Memory, command_id: str) -> Recorded:
        """Creates the record at the memory's content id (the first slot free, or live: a
        duplicate). Past MAX_ATTEMPTS forgotten copies the memory keeps its own random id."""
        for attempt in range(MAX_ATTEMPTS):
            memory_id = content_id(
                memory.workspace_id, memory.scope_ref.key, memory.body, attempt, memory.occurred_at
            )
            try:
                created = await self._store.create(replace(memory, id=memory_id), command_id)
                return Recorded(created, None)
            except ConcurrentUpdate:
                stored = await self._store.get(memory.workspace_id, memory_id)
            # A slot purged since the create failed held a forgotten copy too: the next one.
            if stored is not None and stored.memory.is_live(memory.created_at):
                return Recorded(None, stored)
        return Recorded(await self._store.create(memory, command_id), None)

    async def needs_announcing(self, existing: StoredMemory) -> bool:
        """A duplicate still at its first revision and absent from the lexical lane (written
        last, just before MemoryIndexed): either its MemorySaved is on its way, or its save
        failed (refused, unanswered) or was killed between the record and the event.
        Announcing it again under the same event id heals the second and costs nothing in
        the first (the stream drops it)."""
        if self._lexical is None or existing.memory.revision != 1:
            return False
        held = await self._lexical.present(existing.memory.workspace_id, [existing.memory.id])
        return existing.memory.id not in held

    async def until_indexed(self, existing: Memory, stage: str | None) -> asyncio.Future | None:
        """A duplicate answered to a caller waiting for "indexed" must be recallable too: an
        identical save a moment earlier may be in the record, or in the vector lane, but not
        yet in the lexical lane (written last, just before MemoryIndexed). Then a waiter on
        its MemoryIndexed, registered before the look so that it cannot be missed."""
        if stage != "indexed" or self._lexical is None:
            return None
        waiting = self._waiter.expect(existing.id, stage)
        held = await self._lexical.present(existing.workspace_id, [existing.id])
        if existing.id in held:
            self._waiter.cancel(waiting)
            return None
        return waiting
