"""OpenTelemetry traces: the SDK's TracerProvider from settings (propagation of the trace
context in message headers is in `propagation.py`)."""

from __future__ import annotations

from memhive_settings import TelemetrySettings
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator

from memhive_telemetry.meters import (
    OTLP_PACKAGE,
    TelemetryUnavailable,
    _signal_url,
    one_line_json,
    resource_of,
)
from memhive_telemetry.propagation import random_id


class OwnRandomIds(IdGenerator):
    """Random trace and span ids from a generator of our own. The SDK's default draws from
    the global `random` module on every span, which moves the application's (and its
    tests') random state from whichever thread serves a request or consumes a message."""

    def generate_span_id(self) -> int:
        return random_id(64)

    def generate_trace_id(self) -> int:
        return random_id(128)


class ExportAwareTracerProvider(TracerProvider):
    """The SDK's provider, saying whether any processor takes its spans: with none (no
    exporter, the default), work done per message is not recorded (`propagation.py`).
    A processor added later (a test's in-memory exporter) turns recording on."""

    exports_spans = False

    def add_span_processor(self, span_processor: SpanProcessor) -> None:
        super().add_span_processor(span_processor)
        self.exports_spans = True


def build_tracer_provider(settings: TelemetrySettings) -> TracerProvider:
    provider = ExportAwareTracerProvider(
        resource=resource_of(settings), id_generator=OwnRandomIds()
    )
    for processor in _exporting_processors(settings):
        provider.add_span_processor(processor)
    return provider


def _exporting_processors(settings: TelemetrySettings) -> list[SpanProcessor]:
    if settings.exporter == "console":
        return [BatchSpanProcessor(ConsoleSpanExporter(formatter=one_line_json))]
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
