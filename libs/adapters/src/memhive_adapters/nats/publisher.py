"""EventPublisher on JetStream."""

from __future__ import annotations

import asyncio

from google.protobuf.message import Message
from memhive_contracts.codec import encode
from memhive_contracts.streams import MSG_ID_HEADER
from memhive_ports import BusUnavailable
from memhive_telemetry.propagation import inject_trace
from nats.js import JetStreamContext

from memhive_adapters.nats.unavailable import is_transient

# Pauses between attempts while a stream has no leader (an election takes 1-2 s) or the
# connection is reconnecting; after the last one the caller hears BusUnavailable.
RETRY_PAUSES_S = (0.1, 0.25, 0.5, 1.0, 1.5)


class JetStreamPublisher:
    """Publishes protobuf messages to the stream that owns the subject.

    Returns once the stream acknowledged storage. The Nats-Msg-Id header makes a retried
    publish with the same msg_id a no-op within the stream's duplicate window, so a publish
    the bus could not take (no responders, a timeout, JetStream answering 503) is retried
    a few times before BusUnavailable. The current trace context travels along (W3C
    `traceparent` header), so the consumer's work joins it.
    """

    def __init__(self, js: JetStreamContext, pauses_s: tuple[float, ...] = RETRY_PAUSES_S) -> None:
        self._js, self._pauses_s = js, pauses_s

    async def publish(self, subject: str, message: Message, *, msg_id: str) -> None:
        headers = dict(inject_trace({MSG_ID_HEADER: msg_id}))
        payload = encode(message)
        for pause in (*self._pauses_s, None):
            try:
                await self._js.publish(subject, payload, headers=headers)
                return
            except Exception as exc:
                if not is_transient(exc):
                    raise
                failure = exc
            if pause is not None:
                await asyncio.sleep(pause)
        raise BusUnavailable(
            f"the bus did not store {subject.rsplit('.', 1)[0]} after {len(self._pauses_s) + 1}"
            f" attempts: {type(failure).__name__}"
        ) from failure
