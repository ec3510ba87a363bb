"""OpenTelemetry metrics, traces and structured logs for memhive services.

Services import the types they need from here, so OpenTelemetry stays this library's detail.
"""

from opentelemetry.metrics import Counter, Histogram, Meter
from opentelemetry.sdk.metrics import MeterProvider

from memhive_telemetry.meters import TelemetryUnavailable, build_meter_provider, meter
from memhive_telemetry.process import (
    PROMETHEUS_CONTENT_TYPE,
    Telemetry,
    install_telemetry,
    installed_telemetry,
)
from memhive_telemetry.tracing import (
    build_tracer_provider,
    current_trace_ids,
    extract_trace,
    inject_trace,
    tracer,
)

__all__ = [
    "PROMETHEUS_CONTENT_TYPE",
    "Counter",
    "Histogram",
    "Meter",
    "MeterProvider",
    "Telemetry",
    "TelemetryUnavailable",
    "build_meter_provider",
    "build_tracer_provider",
    "current_trace_ids",
    "extract_trace",
    "inject_trace",
    "install_telemetry",
    "installed_telemetry",
    "meter",
    "tracer",
]
