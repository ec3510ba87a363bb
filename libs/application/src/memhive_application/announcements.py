"""The events announced after a durable write of the record: MemorySaved (by ingest, and by
the gateway for the saves it records itself) and MemoryForgotten, with who asked for the
write (the recent-activity feed shows it).

Each event id is derived from what caused the write, never random, so a redelivered command
announces the same event again and JetStream drops the duplicate.
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.timestamp_pb2 import Timestamp
from memhive.v1 import events_pb2, memory_pb2
from memhive_contracts import subjects
from memhive_contracts.mapping import memory_to_pb
from memhive_domain.memory import Memory
from memhive_ports import EventPublisher

from memhive_application.purge_scheduling import PurgeScheduling

Announcement = events_pb2.MemorySaved | events_pb2.MemoryForgotten


class Announcer:
    """`purges`: memories announced saved with an expiry get their purge scheduled first,
    so a crash in between leaves nothing unscheduled (the redelivery schedules again)."""

    def __init__(self, publisher: EventPublisher, purges: PurgeScheduling | None = None) -> None:
        self._publisher, self._purges = publisher, purges

    async def saved(
        self,
        memory: Memory,
        *,
        event_id: str,
        command_id: str,
        occurred_at: Timestamp,
        embedding: memory_pb2.Embedding | None = None,
        requested_by: str = "",
        near_duplicate_check: float | None = None,
        near_duplicates: Sequence[memory_pb2.Neighbour] = (),
    ) -> None:
        """near_duplicate_check, near_duplicates: the command's, passed on with its embedding."""
        event = events_pb2.MemorySaved(
            event_id=event_id,
            command_id=command_id,
            memory=memory_to_pb(memory),
            occurred_at=occurred_at,
            requested_by=requested_by,
        )
        if embedding is not None:
            event.embedding.CopyFrom(embedding)
            if near_duplicate_check is not None:
                event.near_duplicate_check = near_duplicate_check
                event.near_duplicates.extend(near_duplicates)
        if self._purges is not None:
            await self._purges.written(memory)
        await self._publish(subjects.MEMORY_SAVED, memory, event)

    async def restored_history(
        self, history: list[Memory], *, command_id: str, occurred_at: Timestamp
    ) -> None:
        """The earlier revisions of a restored memory, oldest first: the revision log reads
        them back; they go on a subject of their own, so nothing indexes or counts them."""
        for earlier in history:
            event = events_pb2.MemorySaved(
                event_id=f"{command_id}:restored:{earlier.revision}",
                command_id=command_id,
                memory=memory_to_pb(earlier),
                occurred_at=occurred_at,
            )
            await self._publish(subjects.MEMORY_RESTORED, earlier, event)

    async def forgotten(
        self,
        memory: Memory,
        *,
        event_id: str,
        command_id: str,
        reason: str,
        occurred_at: Timestamp,
        requested_by: str = "",
    ) -> None:
        event = events_pb2.MemoryForgotten(
            event_id=event_id,
            command_id=command_id,
            memory=memory_to_pb(memory),
            reason=reason,
            occurred_at=occurred_at,
            requested_by=requested_by,
        )
        await self._publish(subjects.MEMORY_FORGOTTEN, memory, event)

    async def _publish(
        self,
        subject: str,
        memory: Memory,
        event: events_pb2.MemorySaved | events_pb2.MemoryForgotten,
    ) -> None:
        where = subjects.for_workspace(subject, memory.workspace_id)
        await self._publisher.publish(where, event, msg_id=event.event_id)
