"""Use case: apply a SaveMemory command to the record, exactly once."""

from __future__ import annotations

import uuid
from dataclasses import replace

from memhive.v1 import commands_pb2
from memhive_application.announcements import Announcer
from memhive_application.purge_scheduling import PurgeScheduling
from memhive_contracts.mapping import draft_from_pb, from_timestamp, memory_from_pb
from memhive_contracts.requester_mapping import requester_of
from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.memory import Memory, create_memory
from memhive_domain.principals import Principal
from memhive_ports import EventPublisher, MemoryStore
from memhive_ports.poison import Poison
from memhive_ports.products import ProductDirectory
from memhive_ports.store import StoredMemory

from memhive_ingest.product_visibility import product_visibility
from memhive_ingest.requester_rights import ensure_may_write


class SaveMemoryHandler:
    def __init__(
        self,
        store: MemoryStore,
        publisher: EventPublisher,
        products: ProductDirectory | None = None,
        purges: PurgeScheduling | None = None,
    ) -> None:
        self._store, self._products = store, products
        self._announcer = Announcer(publisher, purges)

    async def __call__(self, workspace_id: str, command: commands_pb2.SaveMemory) -> None:
        stored = await self._persist(workspace_id, command)
        if stored is not None:
            await self._announce(command, stored)

    async def _persist(
        self, workspace_id: str, command: commands_pb2.SaveMemory
    ) -> StoredMemory | None:
        """The stored memory to announce, or None for an identical save that lost a race.
        The record is created first and read only when the id is taken: a first delivery,
        by far the common case, costs one KV write and no read."""
        memory_id = _checked_id(command.memory.id)
        requested_at = from_timestamp(command.requested_at, command.HasField("requested_at"))
        if requested_at is None:
            raise Poison("requested_at is required")
        requester = requester_of(workspace_id, command.requested_by, command)
        principal = requester or Principal(workspace_id, command.requested_by or "unknown")
        draft = draft_from_pb(command.memory)
        memory = create_memory(
            draft,
            memory_id=memory_id,
            principal=principal,
            now=requested_at,
            product_visibility=await product_visibility(self._products, draft, principal),
        )
        ensure_may_write(requester, memory, "save")
        if command.restore:
            memory = _restored(command, memory)
        try:
            return await self._store.create(memory, command.command_id)
        except ConcurrentUpdate:
            existing = await self._store.get(workspace_id, memory_id)
            if existing is None:
                raise  # purged in between: the redelivery creates it
        if existing.last_command_id == command.command_id or _created_by(existing, memory):
            return existing  # a redelivery: the write is already durable
        if _identical(existing, command):
            # Same content id and body: another save of this body got there first. The
            # memory exists once; its own MemorySaved already told every waiter.
            return None
        raise Poison(f"memory id {memory_id} already exists; a save must use a new id")

    async def _announce(self, command: commands_pb2.SaveMemory, stored: StoredMemory) -> None:
        if command.restore:
            await self._announcer.restored_history(
                _history(command, stored.memory),
                command_id=command.command_id,
                occurred_at=command.requested_at,
            )
        await self._announcer.saved(
            stored.memory,
            event_id=f"{command.command_id}:saved",
            command_id=command.command_id,
            occurred_at=command.requested_at,
            embedding=command.embedding if command.HasField("embedding") else None,
            requested_by=command.requested_by,
            near_duplicate_check=(
                command.near_duplicate_check if command.HasField("near_duplicate_check") else None
            ),
            near_duplicates=command.near_duplicates,
        )


def _restored(command: commands_pb2.SaveMemory, checked: Memory) -> Memory:
    """A restore keeps what only a record has (author, times, revision, curation, access
    statistics); everything a save takes is the checked memory's, so it passed the save's rules.
    """
    record = memory_from_pb(command.memory)
    if record.created_at is None or record.updated_at is None or record.revision < 1:
        raise Poison("a restored memory needs created_at, updated_at and a revision")
    return replace(
        checked,
        created_by=record.created_by or checked.created_by,
        created_at=record.created_at,
        updated_at=record.updated_at,
        revision=record.revision,
        access_count=record.access_count,
        last_accessed_at=record.last_accessed_at,
        curation=record.curation,
    )


def _history(command: commands_pb2.SaveMemory, memory: Memory) -> list[Memory]:
    """The restored memory's earlier revisions, as they were: of this memory, before it."""
    earlier = [
        replace(memory_from_pb(m), workspace_id=memory.workspace_id) for m in command.history
    ]
    return [m for m in earlier if m.id == memory.id and m.revision < memory.revision]


def _created_by(existing: StoredMemory, memory: Memory) -> bool:
    # A later change (forget, access counts) moved last_command_id on; the memory's
    # creation time still tells us this very command created it.
    return existing.memory.created_at == memory.created_at and (existing.memory.body == memory.body)


def _identical(existing: StoredMemory, command: commands_pb2.SaveMemory) -> bool:
    return not existing.memory.forgotten and existing.memory.body == command.memory.body.strip()


def _checked_id(memory_id: str) -> str:
    try:
        return str(uuid.UUID(memory_id))
    except ValueError:
        raise Poison(f"memory.id {memory_id!r} is not a UUID") from None
