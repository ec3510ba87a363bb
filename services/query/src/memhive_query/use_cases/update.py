"""Use case: change a live memory (for now: pin or unpin it) through an UpdateMemory command,
applied by ingest like every write; the answer waits for the stage asked for."""

from __future__ import annotations

import uuid

from memhive.v1 import commands_pb2
from memhive_contracts import subjects
from memhive_contracts.mapping import to_timestamp
from memhive_domain.errors import NotAllowed
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.scope_tree import can_write, write_refusal
from memhive_ports import Clock, EventPublisher

from memhive_query.event_waiter import EventWaiter
from memhive_query.use_cases.memories import MemoryReader
from memhive_query.use_cases.save import Wait


class UpdateMemory:
    def __init__(
        self,
        reader: MemoryReader,
        publisher: EventPublisher,
        waiter: EventWaiter,
        clock: Clock,
        wait_timeout_s: float,
    ) -> None:
        self._reader, self._publisher, self._waiter = reader, publisher, waiter
        self._clock, self._timeout = clock, wait_timeout_s

    async def __call__(
        self, principal: Principal, memory_id: str, *, pinned: bool, wait: Wait
    ) -> str:
        """'unchanged', 'updated' (the stage was reached) or 'accepted' (still on its way)."""
        require(principal, Action.UPDATE)
        memory = await self._reader.get(principal, memory_id)
        if not can_write(principal, memory.scope_ref):
            raise NotAllowed(f"cannot change: {write_refusal(principal, memory.scope_ref)}")
        if memory.pinned == pinned:
            return "unchanged"
        command_id = str(uuid.uuid4())
        command = commands_pb2.UpdateMemory(
            command_id=command_id,
            workspace_id=principal.workspace_id,
            memory_id=memory.id,
            requested_by=principal.user_id,
            requested_at=to_timestamp(self._clock.now()),
            pinned=pinned,
        )
        future = None if wait == "accepted" else self._waiter.expect(memory.id, wait)
        subject = subjects.for_workspace(subjects.UPDATE_MEMORY, principal.workspace_id)
        await self._publisher.publish(subject, command, msg_id=command_id)
        if future is None or not await self._waiter.wait(future, self._timeout):
            return "accepted"
        return "updated"
