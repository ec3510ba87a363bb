"""What a pull consumer reports: a span per batch joined to the publishers' traces (not
recorded when nothing exports spans: `span_caused_by`), messages handled and dead-lettered,
and its lag (pending messages, from consumer info)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from memhive_telemetry.propagation import causes_of, extract_trace, span_caused_by
from nats.aio.msg import Msg
from opentelemetry import context as otel_context
from opentelemetry import metrics
from opentelemetry.trace import SpanKind

# Consumer info is one request to the server: asked at most this often per consumer.
LAG_REFRESH_S = 5.0

_meter = metrics.get_meter("memhive.consumer")
_handled = _meter.create_counter(
    "memhive.consumer.messages", description="messages settled, by consumer and outcome"
)
_dead_letters = _meter.create_counter(
    "memhive.consumer.dead_letters", description="messages a consumer gave up on"
)
_pending = _meter.create_gauge(
    "memhive.consumer.pending",
    description="messages in the stream not yet delivered to the consumer (its lag)",
)
_ack_pending = _meter.create_gauge(
    "memhive.consumer.ack_pending", description="messages delivered but not yet acknowledged"
)


class ConsumerTelemetry:
    def __init__(self, durable: str) -> None:
        self._attributes = {"consumer": durable}
        self._durable = durable
        self._lag_read_at = float("-inf")

    @contextmanager
    def batch_span(self, msgs: Sequence[Msg]) -> Iterator[None]:
        """The batch is handled in a child of its first message's trace, linked to the
        others' (one message: exactly the publisher's trace)."""
        causes = causes_of(m.headers for m in msgs)
        with span_caused_by(
            f"{self._durable} process",
            causes,
            source="memhive.consumer",
            kind=SpanKind.CONSUMER,
            attributes={
                "messaging.system": "nats",
                "messaging.consumer.group.name": self._durable,
                "messaging.destination.name": msgs[0].subject,
                "messaging.batch.message_count": len(msgs),
            },
        ):
            yield

    @contextmanager
    def in_trace_of(self, msg: Msg) -> Iterator[None]:
        """The message's trace as the current context (for what is logged about it)."""
        token = otel_context.attach(extract_trace(msg.headers))
        try:
            yield
        finally:
            otel_context.detach(token)

    def settled(self, outcome: str, count: int = 1) -> None:
        _handled.add(count, {**self._attributes, "outcome": outcome})
        if outcome == "dead_letter":
            _dead_letters.add(count, self._attributes)

    def lag_due(self) -> bool:
        return time.monotonic() - self._lag_read_at >= LAG_REFRESH_S

    def lag_unread(self) -> None:
        self._lag_read_at = time.monotonic()

    def record_lag(self, num_pending: int, num_ack_pending: int) -> None:
        self._lag_read_at = time.monotonic()
        _pending.set(num_pending, self._attributes)
        _ack_pending.set(num_ack_pending, self._attributes)
