"""One process's telemetry: installed once by a composition root (`memhive run|serve`).

Installing sets the global OpenTelemetry meter and tracer providers, so instruments and
spans anywhere in the process (the pull consumer, the gateway, a service) need no plumbing;
the Prometheus reader keeps its own registry, which /metrics renders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from memhive_settings import TelemetrySettings
from opentelemetry import metrics, trace
from opentelemetry.exporter.prometheus import PrometheusMetricReader
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.gc_collector import GCCollector

from memhive_telemetry.exposition import merged_by_service
from memhive_telemetry.logs import use_service_logs
from memhive_telemetry.meters import build_meter_provider
from memhive_telemetry.tracing import build_tracer_provider

PROMETHEUS_CONTENT_TYPE = CONTENT_TYPE_LATEST


@dataclass
class Telemetry:
    settings: TelemetrySettings
    meter_provider: MeterProvider
    tracer_provider: TracerProvider
    registry: CollectorRegistry

    def prometheus_text(self) -> bytes:
        """Every instrument of the process, in Prometheus text exposition format."""
        return generate_latest(self.registry)

    def prometheus_text_with(self, others: Mapping[str, bytes]) -> bytes:
        """The same, with other processes' exposition text by service name (`memhive run`'s
        children), every sample labelled with its service."""
        own = self.registry.collect()
        return merged_by_service(self.settings.service_name, own, others)

    def shutdown(self) -> None:
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


_installed: Telemetry | None = None


def install_telemetry(settings: TelemetrySettings) -> Telemetry:
    """Builds and installs the process's telemetry; later calls return the first one (the
    global OpenTelemetry providers can be set only once per process)."""
    global _installed
    if _installed is not None:
        return _installed
    registry = CollectorRegistry(auto_describe=True)
    GCCollector(registry=registry)  # python_gc_collections_total & co., by generation
    reader = PrometheusMetricReader(registry=registry)
    meter_provider = build_meter_provider(settings, [reader])
    tracer_provider = build_tracer_provider(settings)
    metrics.set_meter_provider(meter_provider)
    trace.set_tracer_provider(tracer_provider)
    use_service_logs(settings.service_name, settings.log_format)
    _installed = Telemetry(settings, meter_provider, tracer_provider, registry)
    return _installed


def installed_telemetry() -> Telemetry | None:
    return _installed
