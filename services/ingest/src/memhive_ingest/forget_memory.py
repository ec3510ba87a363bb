"""Use case: mark a memory forgotten in the record, then announce it so every lane drops it."""

from __future__ import annotations

from memhive.v1 import commands_pb2
from memhive_application.announcements import Announcer
from memhive_contracts.mapping import from_timestamp
from memhive_contracts.requester_mapping import requester_of
from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.memory import forget
from memhive_ports import EventPublisher, MemoryStore
from memhive_ports.poison import Poison
from memhive_ports.store import StoredMemory

from memhive_ingest.requester_rights import ensure_may_write

MAX_ATTEMPTS = 5


class ForgetMemoryHandler:
    def __init__(self, store: MemoryStore, publisher: EventPublisher) -> None:
        self._store, self._announcer = store, Announcer(publisher)

    async def __call__(self, workspace_id: str, command: commands_pb2.ForgetMemory) -> None:
        stored = await self._persist(workspace_id, command)
        await self._announcer.forgotten(
            stored.memory,
            event_id=f"{command.command_id}:forgotten",
            command_id=command.command_id,
            reason=command.reason,
            occurred_at=command.requested_at,
            requested_by=command.requested_by,
        )

    async def _persist(self, workspace_id: str, command: commands_pb2.ForgetMemory) -> StoredMemory:
        when = from_timestamp(command.requested_at, command.HasField("requested_at"))
        if when is None:
            raise Poison("requested_at is required")
        requester = requester_of(workspace_id, command.requested_by, command)
        for _ in range(MAX_ATTEMPTS):
            current = await self._store.get(workspace_id, command.memory_id)
            if current is None:
                raise Poison(f"no memory with id {command.memory_id!r} in {workspace_id}")
            if current.memory.forgotten:
                return current  # forgetting twice, or a redelivery: nothing more to write
            ensure_may_write(requester, current.memory, "forget")
            try:
                return await self._store.replace(
                    current, forget(current.memory, when), command.command_id
                )
            except ConcurrentUpdate:
                continue  # someone wrote in between (e.g. access counts): re-read
        raise ConcurrentUpdate(f"memory {command.memory_id} kept changing; will retry")
