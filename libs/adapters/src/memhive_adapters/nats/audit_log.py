"""AuditLog on the stream MEMHIVE_AUDIT (`memhive.audit.<action>.<workspace>`).

JetStream reads forwards only, and admins want the newest entries first, so a read walks
backwards in windows of stream sequences: each window is read forwards by a throwaway
consumer whose subject filter selects the workspace (and the action, when asked) on the
server; principal, target and time are filtered here. Windows grow (x4) so a sparse
workspace is found in a few reads, and one read examines at most MAX_SCAN messages: past
that it returns what it found with a cursor to continue from.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta

from memhive.v1 import audit_pb2
from memhive_contracts import subjects
from memhive_contracts.audit_mapping import audit_from_pb, audit_to_pb
from memhive_contracts.codec import UndecodableMessage, decode
from memhive_contracts.streams import AUDIT_STREAM
from memhive_domain.audit import AuditEntry, AuditQuery
from memhive_ports import AuditPage
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from memhive_adapters.nats.publisher import JetStreamPublisher

FIRST_WINDOW = 256
MAX_SCAN = 50_000
FETCH_BATCH = 256
FETCH_TIMEOUT_S = 5.0
INACTIVE_THRESHOLD_S = 60.0
# Entries from several gateways reach the stream slightly out of time order: a read with
# `since` stops only once it is this far past it.
CLOCK_SLACK = timedelta(minutes=1)


class JetStreamAuditLog:
    def __init__(self, js: JetStreamContext) -> None:
        self._js = js
        self._publisher = JetStreamPublisher(js)

    async def append(self, entry: AuditEntry) -> None:
        subject = subjects.audit(entry.action.value, entry.workspace_id)
        await self._publisher.publish(subject, audit_to_pb(entry), msg_id=f"audit:{entry.id}")

    async def read(
        self, workspace_id: str, query: AuditQuery, before: int | None = None
    ) -> AuditPage:
        state = (await self._js.stream_info(AUDIT_STREAM)).state
        first, high = state.first_seq, state.last_seq
        if before is not None:
            high = min(high, before - 1)
        subject = subjects.audit(query.action.value if query.action else "*", workspace_id)
        found: list[AuditEntry] = []
        window, scanned = FIRST_WINDOW, 0
        while high >= max(first, 1):
            low = max(first, high - window + 1)
            for sequence, entry in reversed(await self._window(subject, low, high)):
                if query.since is not None and entry.time < query.since - CLOCK_SLACK:
                    return AuditPage(found, None)
                if query.matches(entry):
                    found.append(entry)
                    if len(found) == query.limit:
                        return AuditPage(found, sequence)
            scanned += high - low + 1
            high = low - 1
            if scanned >= MAX_SCAN and high >= first:
                return AuditPage(found, high + 1)
            window = min(window * 4, MAX_SCAN)
        return AuditPage(found, None)

    async def _window(self, subject: str, low: int, high: int) -> list[tuple[int, AuditEntry]]:
        info = await self._js.add_consumer(AUDIT_STREAM, config=_reader(subject, low))
        try:
            if not info.num_pending:
                return []
            sub = await self._js.pull_subscribe_bind(consumer=info.name, stream=AUDIT_STREAM)
            try:
                return await _read_until(sub, high)
            finally:
                await sub.unsubscribe()
        finally:
            await self._js.delete_consumer(AUDIT_STREAM, info.name)


def _reader(subject: str, start: int) -> ConsumerConfig:
    # Unnamed: the server names a throwaway reader (bus users may not name consumers).
    return ConsumerConfig(
        filter_subject=subject,
        deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
        opt_start_seq=start,
        ack_policy=AckPolicy.NONE,
        inactive_threshold=INACTIVE_THRESHOLD_S,
        mem_storage=True,
        num_replicas=1,
    )


async def _read_until(
    sub: JetStreamContext.PullSubscription, high: int
) -> list[tuple[int, AuditEntry]]:
    found = []
    while True:
        for msg in await sub.fetch(FETCH_BATCH, timeout=FETCH_TIMEOUT_S):
            sequence = msg.metadata.sequence.stream
            if sequence > high:
                return found
            # Skipped: anything that is not an entry this version can read.
            with contextlib.suppress(UndecodableMessage, ValueError):
                found.append((sequence, audit_from_pb(decode(msg.data, audit_pb2.AuditRecorded))))
            if msg.metadata.num_pending == 0:
                return found
