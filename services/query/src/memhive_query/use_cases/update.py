"""Use case: change a live memory (body, importance, tags, pinned, visibility, expiry; flags,
confirmations, promotion) through one UpdateMemory command, applied by ingest like every
write; the answer waits for the stage asked for.

A new body is checked like a save: embedded once here (the vector travels with the command),
and refused with 409 when it would duplicate another memory of the scope, unless `force`.
A confirmation raises the memory's trust and a flag lowers it, for every reader: like every
other change, each needs the memory's node writable (`changes.change_action` names which
it is, for the policy and the audit).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, replace

from memhive.v1 import commands_pb2, events_pb2
from memhive.v1 import memory_pb2 as pb
from memhive_contracts import subjects
from memhive_contracts.curation_mapping import changes_to_pb
from memhive_contracts.mapping import to_timestamp
from memhive_contracts.requester_mapping import requester_to_pb
from memhive_domain.changes import MemoryChanges, apply_changes, change_action, checked_changes
from memhive_domain.errors import DomainError, NotFound
from memhive_domain.memory import Memory
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.scope_tree import ensure_writable
from memhive_ports import Clock, Embedder, EventPublisher

from memhive_query.event_waiter import (
    EventWaiter,
    following_unless_accepted,
    settling_event,
)
from memhive_query.use_cases.conflicts import ConflictCheck
from memhive_query.use_cases.memories import MemoryReader
from memhive_query.use_cases.save import Wait


class ChangeRejected(DomainError):
    """The change cannot be applied: the memory was forgotten before ingest got to it (409)."""


@dataclass(frozen=True, slots=True)
class UpdateOutcome:
    status: str  # unchanged, updated (the stage was reached) or accepted (still on its way)
    memory: Memory  # as it is known now: re-read after the wait, else as it was asked to be
    change_id: str | None = None  # the command; a flag added by it has this id


class UpdateMemory:
    def __init__(
        self,
        reader: MemoryReader,
        publisher: EventPublisher,
        waiter: EventWaiter,
        clock: Clock,
        wait_timeout_s: float,
        *,
        embedder: Embedder | None = None,
        conflicts: ConflictCheck | None = None,
    ) -> None:
        self._reader, self._publisher, self._waiter = reader, publisher, waiter
        self._clock, self._timeout = clock, wait_timeout_s
        self._embedder, self._conflicts = embedder, conflicts

    async def __call__(
        self,
        principal: Principal,
        memory_id: str,
        changes: MemoryChanges,
        *,
        wait: Wait,
        force: bool = False,
    ) -> UpdateOutcome:
        action = change_action(changes)
        require(principal, action)
        now = self._clock.now()
        checked = checked_changes(changes, now)
        memory = await self._reader.get(principal, memory_id)
        doing = "change" if action is Action.UPDATE else action.value
        ensure_writable(principal, memory.scope_ref, doing)
        change_id = str(uuid.uuid4())
        updated = apply_changes(memory, checked, by=principal.user_id, change_id=change_id, now=now)
        if updated is memory:
            return UpdateOutcome("unchanged", memory)
        vector = await self._checked_body(principal, memory, updated, force)
        return await self._publish(principal, updated, checked, vector, change_id, wait)

    async def _checked_body(
        self, principal: Principal, before: Memory, after: Memory, force: bool
    ) -> list[float] | None:
        """The new body's vector, after the save's conflict check (409 on near-duplicates)."""
        if after.body == before.body or self._embedder is None:
            return None
        vector = (await self._embedder.embed([after.body]))[0]
        if self._conflicts is not None and not force:
            probe = replace(after, created_at=after.updated_at)
            similar = [
                s
                for s in await self._conflicts.similar(principal, probe, vector)
                if s.memory.id != after.id
            ]
            if similar:
                raise self._conflicts.refusal(similar)
        return vector

    async def _publish(
        self,
        principal: Principal,
        updated: Memory,
        changes: MemoryChanges,
        vector: list[float] | None,
        change_id: str,
        wait: Wait,
    ) -> UpdateOutcome:
        wire = changes_to_pb(changes)
        if vector is not None and self._embedder is not None:
            wire.embedding.CopyFrom(pb.Embedding(model=self._embedder.model_name, values=vector))
        command = commands_pb2.UpdateMemory(
            command_id=change_id,
            workspace_id=principal.workspace_id,
            memory_id=updated.id,
            requested_by=principal.user_id,
            requested_at=to_timestamp(updated.updated_at),
            requester=requester_to_pb(principal),
            changes=wire,
        )
        if changes.pinned is not None:
            command.pinned = changes.pinned
        subject = subjects.for_workspace(subjects.UPDATE_MEMORY, principal.workspace_id)
        with following_unless_accepted(self._waiter, updated.id, wait) as events:
            await self._publisher.publish(subject, command, msg_id=change_id)
            if events is None:
                return UpdateOutcome("accepted", updated, change_id)
            applied = await self._applied(events, updated.id, change_id)
        if not applied:
            await self._ensure_still_live(principal, updated.id)
            return UpdateOutcome("accepted", updated, change_id)
        try:
            current = await self._reader.get(principal, updated.id)
        except NotFound:  # the change took it out of the caller's view
            current = updated
        return UpdateOutcome("updated", current, change_id)

    async def _applied(self, following: asyncio.Queue, memory_id: str, change_id: str) -> bool:
        """Whether this change reached the stage in time. Another write of the memory may be
        announced first (waited past); a forget means ingest will refuse this change."""

        def settles(event) -> bool:
            return _forgetting(event) or _announces(event, change_id)

        event = await settling_event(self._waiter, following, self._timeout, settles)
        if event is not None and _forgetting(event):
            raise ChangeRejected(f"the change was not applied: memory {memory_id} was forgotten")
        return event is not None

    async def _ensure_still_live(self, principal: Principal, memory_id: str) -> None:
        """Past the wait: answer 202 only if ingest can still apply the change."""
        try:
            await self._reader.get(principal, memory_id)
        except NotFound:
            raise ChangeRejected(
                f"the change will not be applied: memory {memory_id} is gone"
            ) from None


def _forgetting(event) -> bool:
    return isinstance(event, events_pb2.MemoryForgotten | events_pb2.MemoryUnindexed)


def _announces(event, change_id: str) -> bool:
    """The event is this change's own (MemorySaved by its command, or the MemoryIndexed that
    follows it: its event id starts with the command id)."""
    if isinstance(event, events_pb2.MemorySaved):
        return event.command_id == change_id
    if isinstance(event, events_pb2.MemoryIndexed):
        return event.event_id.startswith(f"{change_id}:")
    return True  # nothing else completes a memory's stage
