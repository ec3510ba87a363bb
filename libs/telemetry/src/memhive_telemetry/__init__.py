"""OpenTelemetry metrics for memhive services, configured from TelemetrySettings.

Services import the types they need from here, so OpenTelemetry stays this library's detail.
"""

from opentelemetry.metrics import Counter, Meter
from opentelemetry.sdk.metrics import MeterProvider

from memhive_telemetry.meters import TelemetryUnavailable, build_meter_provider, meter

__all__ = [
    "Counter",
    "Meter",
    "MeterProvider",
    "TelemetryUnavailable",
    "build_meter_provider",
    "meter",
]
