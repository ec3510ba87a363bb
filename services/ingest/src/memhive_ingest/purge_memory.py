"""Use case of an expired memory's end: apply the purge when the stream delivers it (its
schedule is `memhive_application.purge_scheduling`; memhive_domain.lifecycle has the rule)."""

from __future__ import annotations

import logging
from datetime import timedelta

from memhive.v1 import commands_pb2, events_pb2
from memhive_contracts import subjects
from memhive_contracts.mapping import to_timestamp
from memhive_domain.errors import ConcurrentUpdate
from memhive_domain.lifecycle import is_purgeable
from memhive_ports import Clock, EventPublisher, MemoryStore

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 5


class PurgeMemoryHandler:
    def __init__(
        self, store: MemoryStore, publisher: EventPublisher, clock: Clock, retention: timedelta
    ) -> None:
        self._store, self._publisher = store, publisher
        self._clock, self._retention = clock, retention

    async def __call__(self, workspace_id: str, command: commands_pb2.PurgeMemory) -> None:
        if not await self._purge(workspace_id, command.memory_id):
            return
        event = events_pb2.MemoryPurged(
            event_id=f"{command.command_id}:purged",
            command_id=command.command_id,
            workspace_id=workspace_id,
            memory_id=command.memory_id,
            occurred_at=to_timestamp(self._clock.now()),
        )
        where = subjects.for_workspace(subjects.MEMORY_PURGED, workspace_id)
        await self._publisher.publish(where, event, msg_id=event.event_id)

    async def _purge(self, workspace_id: str, memory_id: str) -> bool:
        """Whether the memory is gone now (a redelivery after the purge finds it gone too,
        and announces again: the lanes may not have heard)."""
        for _ in range(MAX_ATTEMPTS):
            current = await self._store.get(workspace_id, memory_id)
            if current is None:
                return True
            if not is_purgeable(current.memory, self._clock.now(), self._retention):
                log.info("purge of %s skipped: its expiry changed since", memory_id)
                return False
            try:
                await self._store.purge(current)
                return True
            except ConcurrentUpdate:
                continue
        raise ConcurrentUpdate(f"memory {memory_id} kept changing; will retry")
