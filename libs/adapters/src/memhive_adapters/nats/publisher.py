"""EventPublisher on JetStream."""

from __future__ import annotations

import asyncio
import time

from google.protobuf.message import Message
from memhive_contracts.codec import encode
from memhive_contracts.streams import MSG_ID_HEADER
from memhive_ports import BusUnavailable
from memhive_telemetry.propagation import inject_trace
from nats.js import JetStreamContext

from memhive_adapters.free_space import FreeSpace
from memhive_adapters.nats.unavailable import is_transient, port_error

# Pauses between attempts while a stream has no leader (an election takes 1-2 s) or the
# connection is reconnecting; after the last one the caller hears BusUnavailable.
RETRY_PAUSES_S = (0.1, 0.25, 0.5, 1.0, 1.5)
# No new attempt starts after this long: a request's answer stays within a few seconds.
RETRY_BUDGET_S = 3.5


class JetStreamPublisher:
    """Publishes protobuf messages to the stream that owns the subject.

    Returns once the stream acknowledged storage. The Nats-Msg-Id header makes a retried
    publish with the same msg_id a no-op within the stream's duplicate window, so a publish
    the bus could not take (no responders, a timeout, JetStream answering 503) is retried
    a few times, within RETRY_BUDGET_S, before BusUnavailable. A stalled bus (BusStalled)
    and a full store (InsufficientStorage) are not retried: they last longer than a
    request. With `space`, nothing is published while the data dir is below its low-space
    watermark (the gateway's writes). The current trace context travels along (W3C
    `traceparent` header), so the consumer's work joins it.
    """

    def __init__(
        self,
        js: JetStreamContext,
        pauses_s: tuple[float, ...] = RETRY_PAUSES_S,
        *,
        budget_s: float = RETRY_BUDGET_S,
        space: FreeSpace | None = None,
    ) -> None:
        self._js, self._pauses_s, self._budget_s = js, pauses_s, budget_s
        self._space = space

    async def publish(self, subject: str, message: Message, *, msg_id: str) -> None:
        if self._space is not None:
            self._space.require("the write was not accepted")
        headers = dict(inject_trace({MSG_ID_HEADER: msg_id}))
        payload = encode(message)
        deadline = time.monotonic() + self._budget_s
        attempts = 0
        for pause in (*self._pauses_s, None):
            attempts += 1
            try:
                await self._js.publish(subject, payload, headers=headers)
                return
            except Exception as exc:
                if not is_transient(exc):
                    told = port_error(exc, f"the bus did not store {_kind(subject)}")
                    if told is None or told is exc:
                        raise
                    raise told from exc
                failure = exc
            if pause is None or time.monotonic() + pause > deadline:
                break
            await asyncio.sleep(pause)
        raise BusUnavailable(
            f"the bus did not store {_kind(subject)} after {attempts} attempts: {failure}"
        ) from failure


def _kind(subject: str) -> str:
    """The subject without its workspace: what kind of message it is."""
    return subject.rsplit(".", 1)[0]
