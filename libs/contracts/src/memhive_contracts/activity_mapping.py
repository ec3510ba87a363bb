"""The log's events as activity (memhive_domain.activity): which event is which kind, and
who asked for it."""

from __future__ import annotations

from datetime import datetime

from memhive.v1 import edges_pb2, events_pb2
from memhive_domain.activity import ActivityEvent, ActivityKind

from memhive_contracts.codec import decode
from memhive_contracts.edge_mapping import edge_from_pb
from memhive_contracts.mapping import memory_from_pb
from memhive_contracts.subjects import (
    MEMORIES_LINKED,
    MEMORIES_RECALLED,
    MEMORY_FORGOTTEN,
    MEMORY_SAVED,
)

# The subject (without its workspace) of each kind's events; saved and updated share one.
SUBJECTS: dict[ActivityKind, str] = {
    ActivityKind.SAVED: MEMORY_SAVED,
    ActivityKind.UPDATED: MEMORY_SAVED,
    ActivityKind.FORGOTTEN: MEMORY_FORGOTTEN,
    ActivityKind.LINKED: MEMORIES_LINKED,
    ActivityKind.RECALLED: MEMORIES_RECALLED,
}


def activity_from_message(subject: str, data: bytes, time: datetime) -> ActivityEvent:
    """Raises UndecodableMessage or ValueError for anything this version cannot read."""
    root = subject.rsplit(".", 1)[0]
    if root == MEMORY_SAVED:
        saved = decode(data, events_pb2.MemorySaved)
        memory = memory_from_pb(saved.memory)
        kind = ActivityKind.SAVED if memory.revision <= 1 else ActivityKind.UPDATED
        actor = saved.requested_by or (memory.created_by if kind is ActivityKind.SAVED else "")
        return ActivityEvent(kind, time, actor, memory=memory)
    if root == MEMORY_FORGOTTEN:
        gone = decode(data, events_pb2.MemoryForgotten)
        memory = memory_from_pb(gone.memory)
        return ActivityEvent(
            ActivityKind.FORGOTTEN, time, gone.requested_by, memory=memory, reason=gone.reason
        )
    if root == MEMORIES_LINKED:
        linked = decode(data, edges_pb2.MemoriesLinked)
        edges = tuple(edge_from_pb(e) for e in linked.edges)
        actor = edges[0].created_by if edges else ""
        return ActivityEvent(ActivityKind.LINKED, time, actor, edges=edges)
    if root == MEMORIES_RECALLED:
        hits = decode(data, events_pb2.MemoriesRecalled)
        return ActivityEvent(
            ActivityKind.RECALLED,
            time,
            hits.principal_id,
            memory_ids=tuple(hits.memory_ids),
            query=hits.query,
        )
    raise ValueError(f"not an activity subject: {subject}")
