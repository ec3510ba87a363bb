"""Use case: accept a memory, embed it once, put the command on the bus, optionally wait."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

from memhive.v1 import commands_pb2
from memhive.v1 import memory_pb2 as pb
from memhive_contracts import subjects
from memhive_contracts.mapping import memory_to_pb, to_timestamp
from memhive_domain.errors import NotAllowed
from memhive_domain.ids import uuid7
from memhive_domain.memory import Memory, MemoryDraft, create_memory
from memhive_domain.principals import Principal
from memhive_ports import Clock, Embedder, EventPublisher

from memhive_query.event_waiter import EventWaiter

Wait = Literal["accepted", "persisted", "indexed"]


@dataclass(frozen=True, slots=True)
class SaveOutcome:
    memory: Memory
    status: str  # the stage reached: accepted, persisted or indexed


class SaveMemory:
    def __init__(
        self,
        embedder: Embedder,
        publisher: EventPublisher,
        waiter: EventWaiter,
        clock: Clock,
        wait_timeout_s: float,
    ) -> None:
        self._embedder, self._publisher, self._waiter = embedder, publisher, waiter
        self._clock, self._timeout = clock, wait_timeout_s

    async def __call__(self, principal: Principal, draft: MemoryDraft, wait: Wait) -> SaveOutcome:
        if not principal.can_write:
            raise NotAllowed("this token is read-only: only workspace members can save")
        now = self._clock.now()
        memory = create_memory(
            draft, memory_id=uuid7(int(now.timestamp() * 1000)), principal=principal, now=now
        )
        vector = (await self._embedder.embed([memory.body]))[0]
        return await self.publish(principal, memory, vector, wait)

    async def publish(
        self, principal: Principal, memory: Memory, vector: list[float], wait: Wait
    ) -> SaveOutcome:
        command_id = str(uuid.uuid4())
        command = commands_pb2.SaveMemory(
            command_id=command_id,
            memory=memory_to_pb(memory),
            embedding=pb.Embedding(model=self._embedder.model_name, values=vector),
            requested_by=principal.user_id,
            requested_at=to_timestamp(memory.created_at),
        )
        future = None if wait == "accepted" else self._waiter.expect(memory.id, wait)
        subject = subjects.for_workspace(subjects.SAVE_MEMORY, principal.workspace_id)
        await self._publisher.publish(subject, command, msg_id=command_id)
        if future is None or not await self._waiter.wait(future, self._timeout):
            return SaveOutcome(memory, "accepted")
        return SaveOutcome(memory, wait)
