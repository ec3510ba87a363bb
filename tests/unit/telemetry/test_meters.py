from __future__ import annotations

import importlib.util

import pytest
from memhive_settings import TelemetrySettings
from memhive_telemetry import TelemetryUnavailable, build_meter_provider, meter
from opentelemetry.sdk.metrics.export import InMemoryMetricReader


def _otlp_installed() -> bool:
    try:
        return importlib.util.find_spec("opentelemetry.exporter.otlp.proto.http") is not None
    except ModuleNotFoundError:
        return False


OTLP_INSTALLED = _otlp_installed()


def test_counts_reach_a_reader_even_with_no_exporter() -> None:
    reader = InMemoryMetricReader()
    provider = build_meter_provider(TelemetrySettings(service_name="svc"), [reader])

    meter("memhive.test", provider).create_counter("memhive.test.things").add(3, {"k": "v"})

    [resource] = reader.get_metrics_data().resource_metrics
    [point] = resource.scope_metrics[0].metrics[0].data.data_points
    assert (point.value, dict(point.attributes)) == (3, {"k": "v"})
    assert resource.resource.attributes["service.name"] == "svc"
    provider.shutdown()


def test_the_console_exporter_builds_a_provider() -> None:
    provider = build_meter_provider(TelemetrySettings(exporter="console"))

    meter("memhive.test", provider).create_counter("memhive.test.things").add(1)
    provider.shutdown()


@pytest.mark.skipif(OTLP_INSTALLED, reason="the OTLP exporter is installed here")
def test_otlp_without_its_package_is_a_clear_error() -> None:
    with pytest.raises(TelemetryUnavailable, match="opentelemetry-exporter-otlp-proto-http"):
        build_meter_provider(TelemetrySettings(exporter="otlp"))


def test_a_meter_without_a_provider_records_nothing_and_does_not_fail() -> None:
    meter("memhive.test").create_counter("memhive.test.things").add(1)
