"""EventPublisher on JetStream."""

from __future__ import annotations

from google.protobuf.message import Message
from memhive_contracts.codec import encode
from memhive_contracts.streams import MSG_ID_HEADER
from memhive_ports import BusUnavailable
from memhive_telemetry.propagation import inject_trace
from nats.js import JetStreamContext

from memhive_adapters.free_space import FreeSpace
from memhive_adapters.nats.ride_out import RETRY_BUDGET_S, RETRY_PAUSES_S, ride_out
from memhive_adapters.nats.unavailable import is_transient, port_error


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
        attempts = 0

        async def attempt() -> None:
            nonlocal attempts
            attempts += 1
            await self._js.publish(subject, payload, headers=headers)

        try:
            await ride_out(attempt, self._pauses_s, self._budget_s)
        except Exception as exc:
            what = f"the bus did not store {_kind(subject)}"
            if is_transient(exc):
                raise BusUnavailable(f"{what} after {attempts} attempts: {exc}") from exc
            told = port_error(exc, what)
            if told is None or told is exc:
                raise
            raise told from exc


def _kind(subject: str) -> str:
    """The subject without its workspace: what kind of message it is."""
    return subject.rsplit(".", 1)[0]
