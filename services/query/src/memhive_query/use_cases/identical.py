"""Exactly one memory per normalised body and scope, even when identical saves race.

The lane-based duplicate check (conflicts.py) only sees what is already indexed. So a save
also takes a deterministic id (`content_id`: workspace, scope, product, body) and the record's
create-if-absent keeps one of any racing copies: ingest treats the losers as duplicates. A
gateway waits on that id, registered before it reads the record, so either the read or the
winner's event tells it; afterwards the record tells it whether its own command won.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import datetime

from memhive.v1 import events_pb2
from memhive_contracts.mapping import memory_from_pb
from memhive_domain.ids import content_id
from memhive_domain.memory import Memory
from memhive_ports import LexicalIndex, MemoryStore
from memhive_ports.store import StoredMemory

from memhive_query.event_waiter import EventWaiter

# Ids tried before giving up on content ids (each earlier one held a forgotten copy).
MAX_ATTEMPTS = 8


@dataclass(frozen=True, slots=True)
class Claim:
    memory: Memory  # with the id its command must use
    existing: Memory | None  # a live memory already holding that id: the save is a duplicate
    # For a new memory, registered on the id before the record was read; for a duplicate,
    # one on its MemoryIndexed when the caller waits for "indexed" and it is not in the
    # lanes yet.
    waiting: asyncio.Future | None


class IdenticalSaves:
    def __init__(
        self, store: MemoryStore, waiter: EventWaiter, lexical: LexicalIndex | None = None
    ) -> None:
        self._store, self._waiter, self._lexical = store, waiter, lexical

    async def claim(self, memory: Memory, stage: str | None, now: datetime) -> Claim:
        """The memory's content id (the first whose slot is free or live), and a waiter for
        `stage` on it when one is asked for."""
        for attempt in range(MAX_ATTEMPTS):
            memory_id = content_id(
                memory.workspace_id, memory.scope_ref.key, memory.body, attempt, memory.occurred_at
            )
            candidate = replace(memory, id=memory_id)
            waiting = None if stage is None else self._waiter.expect(memory_id, stage)
            try:
                stored = await self._store.get(memory.workspace_id, memory_id)
            except BaseException:  # a read that failed or was given up on leaves no waiter
                if waiting is not None:
                    self._waiter.cancel(waiting)
                raise
            if stored is None:
                return Claim(candidate, None, waiting)
            if waiting is not None:  # the slot is taken: not this save's id to wait on
                self._waiter.cancel(waiting)
            if stored.memory.is_live(now):
                existing = stored.memory
                return Claim(candidate, existing, await self.until_indexed(existing, stage))
        # Many forgotten copies of this body: fall back to the caller's own (random) id.
        waiting = None if stage is None else self._waiter.expect(memory.id, stage)
        return Claim(memory, None, waiting)

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

    async def winner(self, memory: Memory, command_id: str, event=None) -> Memory | None:
        """After the wait: the memory another identical save stored first, or None if ours.
        `event`, the one that ended the wait (MemorySaved or MemoryIndexed of this id),
        tells without a read: it carries the memory as stored (MemorySaved also the command
        that created it). Without one, or one without the memory, the record is read."""
        if isinstance(event, events_pb2.MemorySaved | events_pb2.MemoryIndexed):
            announced = memory_from_pb(event.memory)
            created_by_us = getattr(event, "command_id", "") == command_id
            return None if created_by_us or _same_creation(announced, memory) else announced
        stored = await self._store.get(memory.workspace_id, memory.id)
        if stored is None or _ours(stored, memory, command_id):
            return None
        return stored.memory


def _ours(stored: StoredMemory, memory: Memory, command_id: str) -> bool:
    # last_command_id moves on with later changes; creation time and author still tell.
    return stored.last_command_id == command_id or _same_creation(stored.memory, memory)


def _same_creation(stored: Memory, memory: Memory) -> bool:
    return stored.created_at == memory.created_at and stored.created_by == memory.created_by
