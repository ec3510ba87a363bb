"""OpenTelemetry traces: a TracerProvider from settings, and W3C trace context in headers.

The context of a save travels in NATS message headers (`traceparent`, `tracestate`): the
publisher injects the current span's context, the pull consumer extracts it and handles the
message in a child span, so one save is one trace from the gateway through every service.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping

from memhive_settings import TelemetrySettings
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
from opentelemetry.trace import Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from memhive_telemetry.meters import OTLP_PACKAGE, TelemetryUnavailable, _signal_url, resource_of

_PROPAGATOR = TraceContextTextMapPropagator()


def build_tracer_provider(settings: TelemetrySettings) -> TracerProvider:
    provider = TracerProvider(resource=resource_of(settings))
    for processor in _exporting_processors(settings):
        provider.add_span_processor(processor)
    return provider


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


def _exporting_processors(settings: TelemetrySettings) -> list[SpanProcessor]:
    if settings.exporter == "console":
        return [BatchSpanProcessor(ConsoleSpanExporter())]
    if settings.exporter == "otlp":
        return [BatchSpanProcessor(_otlp_span_exporter(settings.otlp_endpoint))]
    return []


def _otlp_span_exporter(endpoint: str | None):
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError as missing:
        raise TelemetryUnavailable(
            f"MEMHIVE_TELEMETRY__EXPORTER=otlp needs the {OTLP_PACKAGE} package"
        ) from missing
    return OTLPSpanExporter(endpoint=_signal_url(endpoint, "traces"))
