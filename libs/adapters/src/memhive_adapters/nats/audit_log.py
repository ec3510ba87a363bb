"""AuditLog on the stream MEMHIVE_AUDIT (`memhive.audit.<action>.<workspace>`).

Admins want the newest entries first: the read walks back over the stream with
`NewestFirst` (windows read by throwaway consumers whose subject filter selects the
workspace, and the action when asked, on the server); principal, target and time are
filtered here. One read spans at most MAX_SCAN stream sequences: past that it returns what
it found with a cursor to continue from.
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

from memhive_adapters.nats.newest_first import NewestFirst, StoredMessage
from memhive_adapters.nats.publisher import JetStreamPublisher

MAX_SCAN = 50_000
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
        subject = subjects.audit(query.action.value if query.action else "*", workspace_id)
        reader = NewestFirst(self._js, AUDIT_STREAM, [subject], before, max_span=MAX_SCAN)
        found: list[AuditEntry] = []
        while (message := await reader.peek()) is not None:
            reader.pop()
            entry = _entry(message)
            if entry is None:
                continue
            # Added to the entry's time, which is real: `since` may be year 1.
            if query.since is not None and entry.time + CLOCK_SLACK < query.since:
                return AuditPage(found, None)
            if query.matches(entry):
                found.append(entry)
                if len(found) == query.limit:
                    return AuditPage(found, reader.resume_before)
        return AuditPage(found, reader.resume_before)


def _entry(message: StoredMessage) -> AuditEntry | None:
    """None for anything that is not an entry this version can read (skipped)."""
    with contextlib.suppress(UndecodableMessage, ValueError):
        return audit_from_pb(decode(message.data, audit_pb2.AuditRecorded))
    return None
