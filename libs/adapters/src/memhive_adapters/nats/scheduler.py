"""CommandScheduler on JetStream message schedules (nats-server 2.12+, ADR-51).

A schedule is a message on its own subject in the stream, with `Nats-Schedule: @at <time>`
and `Nats-Schedule-Target`; when it falls due the server publishes its body on the target,
inside the same stream, and drops the schedule. The schedule's subject is its identity, so
publishing it again replaces it. Nothing in memhive keeps a timer.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from google.protobuf.message import Message
from memhive_contracts.codec import encode
from nats.js import JetStreamContext

SCHEDULE_HEADER = "Nats-Schedule"
TARGET_HEADER = "Nats-Schedule-Target"


class JetStreamScheduler:
    def __init__(self, js: JetStreamContext) -> None:
        self._js = js

    async def schedule(self, key: str, target: str, message: Message, at: datetime) -> None:
        headers = {SCHEDULE_HEADER: f"@at {_rfc3339(at)}", TARGET_HEADER: target}
        await self._js.publish(key, encode(message), headers=headers)


def _rfc3339(moment: datetime) -> str:
    # Whole seconds, rounded up: a schedule never fires before the moment it was asked for.
    utc = moment.astimezone(UTC)
    whole = utc.replace(microsecond=0)
    if whole < utc:
        whole += timedelta(seconds=1)
    return whole.strftime("%Y-%m-%dT%H:%M:%SZ")
