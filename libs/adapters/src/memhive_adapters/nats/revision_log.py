"""RevisionLog on the log stream: a memory's MemorySaved/MemoryForgotten events, read back.

Why the log and not the KV bucket's history: the bucket keeps at most 64 values per key
(we keep 16) and access statistics rewrite the key without changing its meaning, so a
recalled-often memory would push its real revisions out. The log keeps every event.

Events are per workspace, not per memory, so a read scans the workspace's saved/forgotten
events from `since` on with a throwaway consumer (in memory, no acks, fetched in batches),
and decodes only messages that contain the memory's id.
"""

from __future__ import annotations

from datetime import datetime

from google.protobuf.message import Message
from memhive.v1 import events_pb2
from memhive_contracts import subjects
from memhive_contracts.codec import UndecodableMessage, decode
from memhive_contracts.mapping import memory_from_pb
from memhive_contracts.streams import LOG_STREAM
from memhive_domain.revisions import Change, Revision
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

FETCH_BATCH = 512
FETCH_TIMEOUT_S = 5.0
# The server drops a reader's consumer this long after it went quiet (e.g. it crashed).
INACTIVE_THRESHOLD_S = 60.0

_CHANGES: dict[str, tuple[type[Message], Change]] = {
    subjects.MEMORY_SAVED: (events_pb2.MemorySaved, "saved"),
    subjects.MEMORY_FORGOTTEN: (events_pb2.MemoryForgotten, "forgotten"),
}


class JetStreamRevisionLog:
    def __init__(self, js: JetStreamContext) -> None:
        self._js = js

    async def changes(self, workspace_id: str, memory_id: str, since: datetime) -> list[Revision]:
        info = await self._js.add_consumer(LOG_STREAM, config=_reader(workspace_id, since))
        try:
            if not info.num_pending:
                return []
            sub = await self._js.pull_subscribe_bind(consumer=info.name, stream=LOG_STREAM)
            try:
                return await _read(sub, memory_id)
            finally:
                await sub.unsubscribe()
        finally:
            await self._js.delete_consumer(LOG_STREAM, info.name)


def _reader(workspace_id: str, since: datetime) -> ConsumerConfig:
    return ConsumerConfig(
        # Server-named: bus users may create unnamed readers only (a name could be a
        # durable of another service: bus_permissions).
        description="memhive revisions reader",
        filter_subjects=[subjects.for_workspace(p, workspace_id) for p in _CHANGES],
        deliver_policy=DeliverPolicy.BY_START_TIME,
        opt_start_time=since,
        ack_policy=AckPolicy.NONE,
        inactive_threshold=INACTIVE_THRESHOLD_S,
        mem_storage=True,
        num_replicas=1,
    )


async def _read(sub: JetStreamContext.PullSubscription, memory_id: str) -> list[Revision]:
    found: list[Revision] = []
    needle = memory_id.encode()
    while True:
        msgs = await sub.fetch(FETCH_BATCH, timeout=FETCH_TIMEOUT_S)
        found += [r for m in msgs if needle in (m.data or b"") and (r := _revision(m, memory_id))]
        if msgs[-1].metadata.num_pending == 0:
            return found


def _revision(msg: Msg, memory_id: str) -> Revision | None:
    message_type, change = _CHANGES[_prefix(msg.subject)]
    try:
        event = decode(msg.data, message_type)
    except UndecodableMessage:
        return None  # not ours (anyone may publish there); embed dead-letters it
    if event.memory.id != memory_id:
        return None
    return Revision(
        memory_from_pb(event.memory),
        change,
        event.event_id,
        event.command_id,
        event.requested_by,
    )


def _prefix(subject: str) -> str:
    return subject.rsplit(".", 1)[0]
