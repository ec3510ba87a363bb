"""An OpenTelemetry MeterProvider built from TelemetrySettings; nothing is set globally.

Composition roots build one provider per process and hand it (or meters from it) to the
code that counts; tests pass a provider with an in-memory reader and read what was counted.
"""

from __future__ import annotations

from collections.abc import Sequence

from memhive_settings import TelemetrySettings
from opentelemetry.metrics import Meter, NoOpMeterProvider
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    ConsoleMetricExporter,
    MetricReader,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import SERVICE_NAME, Resource

OTLP_PACKAGE = "opentelemetry-exporter-otlp-proto-http"


class TelemetryUnavailable(RuntimeError):
    """The configured exporter cannot be built in this environment."""


def build_meter_provider(
    settings: TelemetrySettings, extra_readers: Sequence[MetricReader] = ()
) -> MeterProvider:
    """exporter none: counts are kept but never exported (extra readers still see them)."""
    readers = [*_exporting_readers(settings), *extra_readers]
    resource = Resource.create({SERVICE_NAME: settings.service_name})
    return MeterProvider(metric_readers=readers, resource=resource)


def meter(name: str, provider: MeterProvider | None = None) -> Meter:
    """A meter from `provider`; with none, one that records nothing."""
    source = provider if provider is not None else NoOpMeterProvider()
    return source.get_meter(name)


def _exporting_readers(settings: TelemetrySettings) -> list[MetricReader]:
    if settings.exporter == "console":
        return [PeriodicExportingMetricReader(ConsoleMetricExporter())]
    if settings.exporter == "otlp":
        return [PeriodicExportingMetricReader(_otlp_exporter(settings.otlp_endpoint))]
    return []


def _otlp_exporter(endpoint: str | None):
    try:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    except ImportError as missing:
        raise TelemetryUnavailable(
            f"MEMHIVE_TELEMETRY__EXPORTER=otlp needs the {OTLP_PACKAGE} package, which is not "
            "installed; install it or use exporter=console or none"
        ) from missing
    return OTLPMetricExporter(endpoint=endpoint) if endpoint else OTLPMetricExporter()
