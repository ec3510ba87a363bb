"""An OpenTelemetry MeterProvider built from TelemetrySettings.

`build_meter_provider` sets nothing globally: tests pass a provider with an in-memory reader
and read what was counted. A process's composition root installs one through
`memhive_telemetry.install_telemetry`, which also serves it as /metrics.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from memhive_settings import TelemetrySettings
from opentelemetry import metrics
from opentelemetry.metrics import Meter
from opentelemetry.sdk.environment_variables import OTEL_METRICS_EXEMPLAR_FILTER
from opentelemetry.sdk.metrics import (
    AlwaysOffExemplarFilter,
    ExemplarFilter,
    MeterProvider,
    TraceBasedExemplarFilter,
)
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
    return MeterProvider(
        metric_readers=readers,
        resource=resource_of(settings),
        exemplar_filter=_exemplar_filter(settings),
    )


def _exemplar_filter(settings: TelemetrySettings) -> ExemplarFilter | None:
    """Exemplars (a measurement's trace id) only when spans are exported: with no exporter
    they point at traces nobody keeps, and /metrics (Prometheus text) never shows them. The
    SDK's default samples one on every measurement made in a sampled context (all of a
    save's): half a counter's cost, drawn from the global `random` module, whose state is
    the application's (and its tests'). OTEL_METRICS_EXEMPLAR_FILTER, when set, decides."""
    if os.environ.get(OTEL_METRICS_EXEMPLAR_FILTER):
        return None  # the SDK reads it
    return TraceBasedExemplarFilter() if settings.exporter != "none" else AlwaysOffExemplarFilter()


def resource_of(settings: TelemetrySettings) -> Resource:
    return Resource.create({SERVICE_NAME: settings.service_name})


def meter(name: str, provider: MeterProvider | None = None) -> Meter:
    """A meter from `provider`; with none, the process's (which records nothing until
    `install_telemetry` installed one)."""
    source = provider if provider is not None else metrics.get_meter_provider()
    return source.get_meter(name)


def one_line_json(item) -> str:
    """A console exporter's record as one JSON object on one line (the SDK indents it over
    many): a log shipper reads it, and under `memhive run` a child's records, relayed line by
    line, never interleave with the parent's."""
    return item.to_json(indent=None) + os.linesep


def _exporting_readers(settings: TelemetrySettings) -> list[MetricReader]:
    if settings.exporter == "console":
        exporter = ConsoleMetricExporter(formatter=one_line_json)
        return [PeriodicExportingMetricReader(exporter)]
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
    return OTLPMetricExporter(endpoint=_signal_url(endpoint, "metrics"))


def _signal_url(endpoint: str | None, signal: str) -> str | None:
    """The OTLP/HTTP URL of one signal under a collector's base URL (None: the exporter's
    own default, which honours OTEL_EXPORTER_OTLP_ENDPOINT)."""
    if not endpoint:
        return None
    return (
        endpoint
        if endpoint.rstrip("/").endswith(f"/v1/{signal}")
        else (f"{endpoint.rstrip('/')}/v1/{signal}")
    )
