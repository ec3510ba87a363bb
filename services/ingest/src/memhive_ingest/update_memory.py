"""Use case: change fields of a live memory in the record (a new revision), then announce
it with MemorySaved so the lanes, the bulletin and the revision history follow. A changed
body travels with its new vector when the sender computed one (embed once)."""

from __future__ import annotations

from dataclasses import replace

from memhive.v1 import commands_pb2
from memhive_application.announcements import Announcer
from memhive_application.purge_scheduling import PurgeScheduling
from memhive_contracts.curation_mapping import changes_from_pb
from memhive_contracts.mapping import from_timestamp
from memhive_contracts.requester_mapping import requester_of
from memhive_domain.changes import MemoryChanges, apply_changes, change_action, checked_changes
from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.memory import Memory
from memhive_domain.principals import Principal
from memhive_ports import EventPublisher, MemoryStore
from memhive_ports.poison import Poison
from memhive_ports.store import StoredMemory

from memhive_ingest.requester_rights import ensure_may_write

MAX_ATTEMPTS = 5


class UpdateMemoryHandler:
    def __init__(
        self,
        store: MemoryStore,
        publisher: EventPublisher,
        purges: PurgeScheduling | None = None,
    ) -> None:
        self._store, self._announcer = store, Announcer(publisher, purges)

    async def __call__(self, workspace_id: str, command: commands_pb2.UpdateMemory) -> None:
        stored, changed = await self._persist(workspace_id, command)
        if changed:
            await self._announcer.saved(
                stored.memory,
                event_id=f"{command.command_id}:saved",
                command_id=command.command_id,
                occurred_at=command.requested_at,
                embedding=_travelling_vector(command, stored),
                requested_by=command.requested_by,
            )

    async def _persist(
        self, workspace_id: str, command: commands_pb2.UpdateMemory
    ) -> tuple[StoredMemory, bool]:
        when = from_timestamp(command.requested_at, command.HasField("requested_at"))
        if when is None:
            raise Poison("requested_at is required")
        changes = _changes_of(command, when)
        requester = requester_of(workspace_id, command.requested_by, command)
        for _ in range(MAX_ATTEMPTS):
            current = await self._store.get(workspace_id, command.memory_id)
            if current is None:
                raise Poison(f"no memory with id {command.memory_id!r} in {workspace_id}")
            if current.last_command_id == command.command_id:
                return current, True  # a redelivery: written, announce again (deduplicated)
            if current.memory.forgotten:
                raise Poison(f"memory {command.memory_id} is forgotten: it cannot change")
            _ensure_allowed(requester, changes, current.memory)
            updated = apply_changes(
                current.memory,
                changes,
                by=command.requested_by,
                change_id=command.command_id,
                now=when,
            )
            if updated is current.memory:
                return current, False  # nothing changes: no revision, no event
            try:
                return await self._store.replace(current, updated, command.command_id), True
            except ConcurrentUpdate:
                continue  # someone wrote in between (e.g. access counts): re-read
        raise ConcurrentUpdate(f"memory {command.memory_id} kept changing; will retry")


def _ensure_allowed(requester: Principal | None, changes: MemoryChanges, memory: Memory) -> None:
    """Any change, a flag or a confirmation included, needs the memory's node writable
    (`changes.change_action`)."""
    ensure_may_write(requester, memory, change_action(changes).value)


def _changes_of(command: commands_pb2.UpdateMemory, when) -> MemoryChanges:
    """Checked like the gateway's (hooks publish here too): a bad change is dead-lettered.
    An expiry already past when the command was made is checked against that moment."""
    changes = changes_from_pb(command.changes)
    if command.HasField("pinned"):
        changes = replace(changes, pinned=command.pinned)
    return checked_changes(changes, when)


def _travelling_vector(command: commands_pb2.UpdateMemory, stored: StoredMemory):
    """The new body's vector, only when it is this body's (else embed computes one)."""
    changes = command.changes
    if changes.HasField("embedding") and changes.body == stored.memory.body:
        return changes.embedding
    return None
