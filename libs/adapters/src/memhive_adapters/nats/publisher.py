"""EventPublisher on JetStream."""

from __future__ import annotations

from google.protobuf.message import Message
from memhive_contracts.codec import encode
from memhive_contracts.streams import MSG_ID_HEADER
from memhive_telemetry.propagation import inject_trace
from nats.js import JetStreamContext


class JetStreamPublisher:
    """Publishes protobuf messages to the stream that owns the subject.

    Returns once the stream acknowledged storage. The Nats-Msg-Id header makes a retried
    publish with the same msg_id a no-op within the stream's duplicate window. The current
    trace context travels along (W3C `traceparent` header), so the consumer's work joins it.
    """

    def __init__(self, js: JetStreamContext) -> None:
        self._js = js

    async def publish(self, subject: str, message: Message, *, msg_id: str) -> None:
        headers = inject_trace({MSG_ID_HEADER: msg_id})
        await self._js.publish(subject, encode(message), headers=dict(headers))
