"""EventCounts on JetStream: the server counts, nothing is read.

A consumer created with a subject filter and a start time reports `num_pending`, the
number of matching messages from that time on, from the stream's subject index. So one
throwaway consumer per moment (created, read, deleted) counts a day of saves or recalls
without fetching a single message, whatever the stream holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

# The server drops a counter's consumer this long after it went quiet (e.g. we crashed).
INACTIVE_THRESHOLD_S = 30.0


class JetStreamEventCounts:
    def __init__(self, js: JetStreamContext) -> None:
        self._js = js

    async def since(self, stream: str, subject: str, moments: Sequence[datetime]) -> list[int]:
        return [await self._pending(stream, subject, moment) for moment in moments]

    async def _pending(self, stream: str, subject: str, moment: datetime) -> int:
        config = ConsumerConfig(  # unnamed: the server names it (bus users may not)
            filter_subject=subject,
            deliver_policy=DeliverPolicy.BY_START_TIME,
            opt_start_time=moment,
            ack_policy=AckPolicy.NONE,
            inactive_threshold=INACTIVE_THRESHOLD_S,
            mem_storage=True,
            num_replicas=1,
        )
        info = await self._js.add_consumer(stream, config=config)
        try:
            return int(info.num_pending or 0)
        finally:
            await self._js.delete_consumer(stream, info.name)
