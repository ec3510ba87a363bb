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

    async def settle(
        self, existing: StoredMemory, stage: str | None
    ) -> tuple[asyncio.Future | None, bool]:
        """For a duplicate the record's create found: `until_indexed`'s waiter, and whether
        to announce it again. It is, when still at its first revision and absent from the
        lexical lane (written last, just before MemoryIndexed): either its MemorySaved is on
        its way, or its save failed (refused, unanswered) or was killed between the record
        and the event. Announcing it again under the same event id heals the second and
        costs nothing in the first (the stream drops it). One look at the lane for both."""
        first = existing.memory.revision == 1
        if self._lexical is None or not (first or stage == "indexed"):
            return None, False
        waiting, held = await self._looked_up(existing.memory, stage)
        return waiting, first and not held

    async def until_indexed(self, existing: Memory, stage: str | None) -> asyncio.Future | None:
        """A duplicate answered to a caller waiting for "indexed" must be recallable too: an
        identical save a moment earlier may be in the record, or in the vector lane, but not
        yet in the lexical lane (written last, just before MemoryIndexed). Then a waiter on
        its MemoryIndexed, registered before the look so that it cannot be missed."""
        if stage != "indexed" or self._lexical is None:
            return None
        return (await self._looked_up(existing, stage))[0]

    async def _looked_up(
        self, memory: Memory, stage: str | None
    ) -> tuple[asyncio.Future | None, bool]:
        """Whether the lexical lane holds the memory, and a waiter on its MemoryIndexed for
        a caller waiting for "indexed" while it does not (registered before the look)."""
        assert self._lexical is not None  # narrowed by the callers
        waiting = self._waiter.expect(memory.id, stage) if stage == "indexed" else None
        try:
            held = memory.id in await self._lexical.present(memory.workspace_id, [memory.id])
        except BaseException:
            if waiting is not None:
                self._waiter.cancel(waiting)
            raise
        if held and waiting is not None:
            self._waiter.cancel(waiting)
            waiting = None
        return waiting, held
