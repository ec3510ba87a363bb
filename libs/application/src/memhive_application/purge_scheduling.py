"""Schedule an expiring memory's purge when it is written (memhive_domain.lifecycle has the
rule): ingest after its writes, the gateway after the saves it records itself."""

from __future__ import annotations

from datetime import timedelta

from memhive.v1 import commands_pb2
from memhive_contracts import subjects
from memhive_contracts.mapping import to_timestamp
from memhive_domain.lifecycle import purge_due
from memhive_domain.memory import Memory
from memhive_ports import CommandScheduler


class PurgeScheduling:
    """After a write: a memory with an expiry gets its purge scheduled (again: a changed
    expiry replaces the earlier schedule; a removed one leaves a schedule that finds
    nothing to purge)."""

    def __init__(self, scheduler: CommandScheduler, retention: timedelta) -> None:
        self._scheduler, self._retention = scheduler, retention

    async def written(self, memory: Memory) -> None:
        due = purge_due(memory, self._retention)
        if due is None:
            return
        command = commands_pb2.PurgeMemory(
            command_id=f"purge:{memory.id}:{due.isoformat()}",
            workspace_id=memory.workspace_id,
            memory_id=memory.id,
            expires_at=to_timestamp(memory.expires_at),
            due_at=to_timestamp(due),
        )
        await self._scheduler.schedule(
            subjects.purge_schedule(memory.workspace_id, memory.id),
            subjects.for_workspace(subjects.PURGE_MEMORY, memory.workspace_id),
            command,
            due,
        )
