"""W3C trace context in NATS message headers, on the OpenTelemetry API alone (no SDK).

The context of a save travels in message headers (`traceparent`, `tracestate`): the
publisher injects the current span's context, the pull consumer extracts it and handles the
message in a child span, so one save is one trace from the gateway through every service.
Kept apart from the SDK (`tracing.py`, ~0.7 s to import) so every process that publishes,
CLI commands included, pays only for the API.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from functools import cache

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from opentelemetry.util.types import Attributes

_PROPAGATOR = TraceContextTextMapPropagator()

# The span some work is done for (a message's publisher, a request), kept to join it later.
TraceCause = SpanContext


def tracer(name: str) -> Tracer:
    """A tracer from the process's provider (a no-op until one is installed)."""
    return trace.get_tracer(name)


def inject_trace(headers: MutableMapping[str, str]) -> MutableMapping[str, str]:
    """Adds the current span's context (W3C traceparent) to `headers`; none, nothing added."""
    _PROPAGATOR.inject(headers)
    return headers


def extract_trace(headers: Mapping[str, str] | None) -> otel_context.Context:
    """The remote context carried by `headers` (an empty context when there is none)."""
    return _PROPAGATOR.extract(dict(headers or {}))


def current_trace_ids() -> tuple[str, str] | None:
    """(trace id, span id) in hex of the current span, or None outside any span."""
    span_context = trace.get_current_span().get_span_context()
    if not span_context.is_valid:
        return None
    return format(span_context.trace_id, "032x"), format(span_context.span_id, "016x")


def cause_of(headers: Mapping[str, str] | None) -> TraceCause | None:
    """The span that published a message, when its headers carry one."""
    span_context = trace.get_current_span(extract_trace(headers)).get_span_context()
    return span_context if span_context.is_valid else None


@contextmanager
def span_caused_by(
    name: str,
    causes: Sequence[TraceCause],
    *,
    source: str,
    kind: SpanKind = SpanKind.INTERNAL,
    attributes: Attributes = None,
) -> Iterator[None]:
    """Work done for several causes at once (a batch of messages, a debounced refresh): a
    child of the first cause's span, linked to the others; with none, a trace of its own.
    `source` names the tracer (the instrumentation scope)."""
    parent = trace.set_span_in_context(NonRecordingSpan(causes[0])) if causes else None
    links = [Link(cause) for cause in causes[1:]]
    with _tracer_of(source).start_as_current_span(
        name, context=parent, kind=kind, links=links, attributes=attributes
    ):
        yield


@cache
def _tracer_of(source: str) -> Tracer:
    # Once per source, not per batch (a proxy until the process installs its provider).
    return tracer(source)
