"""OpenTelemetry traces: the SDK's TracerProvider from settings (propagation of the trace
context in message headers is in `propagation.py`)."""

from __future__ import annotations

from memhive_settings import TelemetrySettings
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

from memhive_telemetry.meters import OTLP_PACKAGE, TelemetryUnavailable, _signal_url, resource_of


def build_tracer_provider(settings: TelemetrySettings) -> TracerProvider:
    provider = TracerProvider(resource=resource_of(settings))
    for processor in _exporting_processors(settings):
        provider.add_span_processor(processor)
    return provider


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
