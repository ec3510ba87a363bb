"""OpenTelemetry traces: the SDK's TracerProvider from settings (propagation of the trace
context in message headers is in `propagation.py`)."""

from __future__ import annotations

import random

from memhive_settings import TelemetrySettings
from opentelemetry import trace
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


class OwnRandomIds(IdGenerator):
    """Random trace and span ids from a generator of our own. The SDK's default draws from
    the global `random` module on every span, which moves the application's (and its
    tests') random state from whichever thread serves a request or consumes a message."""

    def __init__(self) -> None:
        self._random = random.Random()  # seeded from os.urandom

    def generate_span_id(self) -> int:
        return self._nonzero(64, trace.INVALID_SPAN_ID)

    def generate_trace_id(self) -> int:
        return self._nonzero(128, trace.INVALID_TRACE_ID)

    def _nonzero(self, bits: int, invalid: int) -> int:
        while (value := self._random.getrandbits(bits)) == invalid:
            pass
        return value


def build_tracer_provider(settings: TelemetrySettings) -> TracerProvider:
    provider = TracerProvider(resource=resource_of(settings), id_generator=OwnRandomIds())
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
