"""W3C trace context in NATS message headers, on the OpenTelemetry API alone (no SDK).

The context of a save travels in message headers (`traceparent`, `tracestate`): the
publisher injects the current span's context, the pull consumer extracts it and handles the
message in a child span, so one save is one trace from the gateway through every service.
Kept apart from the SDK (`tracing.py`, ~0.7 s to import) so every process that publishes,
CLI commands included, pays only for the API.

When no processor takes the process's spans (no exporter: the default), work done for a
message is not recorded: it runs in a span context of its own under the cause's trace, as
the SDK would have made it (ids, flags, state), so the trace id still travels on and reaches
the logs, for a quarter of a recorded span's CPU (`span_caused_by`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from functools import cache

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import (
    INVALID_SPAN_ID,
    INVALID_TRACE_ID,
    Link,
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    TraceFlags,
    Tracer,
)
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from opentelemetry.util.types import Attributes

_PROPAGATOR = TraceContextTextMapPropagator()
# Span and trace ids; not the global `random`, whose state is the application's (and tests').
_IDS = random.Random()  # seeded from os.urandom

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


def spans_recorded() -> bool:
    """Whether the process's provider hands spans to a processor (an exporter). A provider
    that cannot say (not ours, or none installed yet) is taken as recording."""
    return getattr(trace.get_tracer_provider(), "exports_spans", True)


def causes_of(headers: Iterable[Mapping[str, str] | None]) -> list[TraceCause]:
    """The publishers' spans of a batch of messages: every one when spans are recorded (the
    others are linked); else only the first, the parent, without reading the rest."""
    found = (c for c in map(cause_of, headers) if c is not None)
    if spans_recorded():
        return list(found)
    return [first] if (first := next(found, None)) is not None else []


def random_id(bits: int) -> int:
    """A span id (64 bits) or trace id (128), never the invalid zero."""
    while (value := _IDS.getrandbits(bits)) in (INVALID_SPAN_ID, INVALID_TRACE_ID):
        pass
    return value


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
    `source` names the tracer (the instrumentation scope). Not recorded when nothing
    exports spans (the module's note)."""
    if not spans_recorded():
        with trace.use_span(_unrecorded_child(causes[0] if causes else None)):
            yield
        return
    parent = trace.set_span_in_context(NonRecordingSpan(causes[0])) if causes else None
    links = [Link(cause) for cause in causes[1:]]
    with _tracer_of(source).start_as_current_span(
        name, context=parent, kind=kind, links=links, attributes=attributes
    ):
        yield


def _unrecorded_child(cause: TraceCause | None) -> NonRecordingSpan:
    """The context the SDK's default sampler (parent-based, always on) gives a child of
    `cause`: its trace, flags and state under a new span id; no cause, a new sampled trace."""
    if cause is None:
        context = SpanContext(random_id(128), random_id(64), False, TraceFlags(TraceFlags.SAMPLED))
    else:
        context = SpanContext(
            cause.trace_id, random_id(64), False, cause.trace_flags, cause.trace_state
        )
    return NonRecordingSpan(context)


@cache
def _tracer_of(source: str) -> Tracer:
    # Once per source, not per batch (a proxy until the process installs its provider).
    return tracer(source)
