"""OpenTelemetry metrics for memhive services, configured from TelemetrySettings."""

from memhive_telemetry.meters import TelemetryUnavailable, build_meter_provider, meter

__all__ = ["TelemetryUnavailable", "build_meter_provider", "meter"]
