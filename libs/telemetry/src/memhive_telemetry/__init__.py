"""OpenTelemetry metrics, traces and structured logs for memhive services.

Services import the types they need from here, so OpenTelemetry stays this library's detail.
Names load on first use (PEP 562): a process that only propagates trace context (the
publisher, CLI commands) imports the OpenTelemetry API, never the SDK.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.metrics import Counter, Histogram, Meter
    from opentelemetry.sdk.metrics import MeterProvider

    from memhive_telemetry.meters import TelemetryUnavailable, build_meter_provider, meter
    from memhive_telemetry.process import (
        PROMETHEUS_CONTENT_TYPE,
        Telemetry,
        install_telemetry,
        installed_telemetry,
    )
    from memhive_telemetry.propagation import (
        current_trace_ids,
        extract_trace,
        inject_trace,
        tracer,
    )
    from memhive_telemetry.tracing import build_tracer_provider

_HOMES = {
    "Counter": "opentelemetry.metrics",
    "Histogram": "opentelemetry.metrics",
    "Meter": "opentelemetry.metrics",
    "MeterProvider": "opentelemetry.sdk.metrics",
    "TelemetryUnavailable": "memhive_telemetry.meters",
    "build_meter_provider": "memhive_telemetry.meters",
    "meter": "memhive_telemetry.meters",
    "PROMETHEUS_CONTENT_TYPE": "memhive_telemetry.process",
    "Telemetry": "memhive_telemetry.process",
    "install_telemetry": "memhive_telemetry.process",
    "installed_telemetry": "memhive_telemetry.process",
    "build_tracer_provider": "memhive_telemetry.tracing",
    "current_trace_ids": "memhive_telemetry.propagation",
    "extract_trace": "memhive_telemetry.propagation",
    "inject_trace": "memhive_telemetry.propagation",
    "tracer": "memhive_telemetry.propagation",
}

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


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_HOMES[name]), name)
    globals()[name] = value
    return value
