"""RevisionLog on the log stream: a memory's MemorySaved/MemoryForgotten events, read back.

Why the log and not the KV bucket's history: the bucket keeps at most 64 values per key
(we keep 16) and access statistics rewrite the key without changing its meaning, so a
recalled-often memory would push its real revisions out. The log keeps every event.

Events are per workspace, not per memory, so a read scans the workspace's saved/forgotten
events from `since` on with a throwaway consumer (in memory, no acks, fetched in batches),
and decodes only messages that contain the memory's id.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

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

from memhive_adapters.nats.unavailable import unavailable_as_port_error

FETCH_BATCH = 512
# A throwaway reader's messages are there when it is made: waiting longer for them is a
# bus that does not answer (bus_liveness: slow after 1 s, then a probe), not a slow one.
FETCH_TIMEOUT_S = 2.0
# The server drops a reader's consumer this long after it went quiet (e.g. it crashed).
INACTIVE_THRESHOLD_S = 60.0

_CHANGES: dict[str, tuple[type[Message], Change]] = {
    subjects.MEMORY_SAVED: (events_pb2.MemorySaved, "saved"),
    subjects.MEMORY_FORGOTTEN: (events_pb2.MemoryForgotten, "forgotten"),
    subjects.MEMORY_RESTORED: (events_pb2.MemorySaved, "saved"),  # a restore's earlier ones
}


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class JetStreamRevisionLog:
    def __init__(self, js: JetStreamContext) -> None:
        self._js = js

    async def changes(self, workspace_id: str, memory_id: str, since: datetime) -> list[Revision]:
        async with unavailable_as_port_error("the revision history was not read"):
            return [r async for r in self._changes(workspace_id, since, memory_id)]

    def workspace_changes(self, workspace_id: str) -> AsyncIterator[Revision]:
        """Every saved/forgotten event of the workspace, oldest first, a batch in hand at a time
        (an export's history: one scan instead of one per memory)."""
        return self._changes(workspace_id, EPOCH, None)

    async def _changes(
        self, workspace_id: str, since: datetime, memory_id: str | None
    ) -> AsyncIterator[Revision]:
        info = await self._js.add_consumer(LOG_STREAM, config=_reader(workspace_id, since))
        try:
            if not info.num_pending:
                return
            sub = await self._js.pull_subscribe_bind(consumer=info.name, stream=LOG_STREAM)
            try:
                async for revision in _read(sub, memory_id):
                    yield revision
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


async def _read(
    sub: JetStreamContext.PullSubscription, memory_id: str | None
) -> AsyncIterator[Revision]:
    needle = (memory_id or "").encode()  # only messages that contain the id are decoded
    while True:
        msgs = await sub.fetch(FETCH_BATCH, timeout=FETCH_TIMEOUT_S)
        for m in msgs:
            if needle in (m.data or b"") and (revision := _revision(m, memory_id)):
                yield revision
        if msgs[-1].metadata.num_pending == 0:
            return


def _revision(msg: Msg, memory_id: str | None) -> Revision | None:
    """The change a message announces (of `memory_id`, when given); None when it is not one."""
    message_type, change = _CHANGES[_prefix(msg.subject)]
    try:
        event = decode(msg.data, message_type)
    except UndecodableMessage:
        return None  # not ours (anyone may publish there); embed dead-letters it
    if memory_id is not None and event.memory.id != memory_id:
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
