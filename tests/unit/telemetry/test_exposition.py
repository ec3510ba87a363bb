"""Several processes' Prometheus text as one scrape (memhive_telemetry/exposition.py)."""

from __future__ import annotations

from memhive_settings import TelemetrySettings
from memhive_telemetry import build_meter_provider
from memhive_telemetry.exposition import merged_by_service
from opentelemetry.exporter.prometheus import PrometheusMetricReader
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families


def registry_of(service: str, consumer: str) -> CollectorRegistry:
    """One process's Prometheus registry, with a counter and a histogram in it."""
    registry = CollectorRegistry(auto_describe=True)
    settings = TelemetrySettings(service_name=service)
    provider = build_meter_provider(settings, [PrometheusMetricReader(registry=registry)])
    meter = provider.get_meter("memhive.test")
    meter.create_counter("memhive.consumer.messages").add(3, {"consumer": consumer})
    meter.create_histogram("http.server.request.duration", unit="s").record(0.2)
    return registry


def test_each_sample_names_its_service_and_each_family_is_declared_once() -> None:
    own = registry_of("memhive", "embed").collect()
    child = generate_latest(registry_of("memhive-ingest", "ingest"))
    merged = merged_by_service("memhive", own, {"memhive-ingest": child}).decode()

    assert merged.count("# TYPE memhive_consumer_messages_total counter") == 1
    assert merged.count("# TYPE http_server_request_duration_seconds histogram") == 1
    families = {f.name: f for f in text_string_to_metric_families(merged)}
    counted = {
        (s.labels["consumer"], s.labels["service"]): s.value
        for s in families["memhive_consumer_messages"].samples
    }
    assert counted == {("embed", "memhive"): 3.0, ("ingest", "memhive-ingest"): 3.0}
    services = {
        s.labels["service"] for s in families["http_server_request_duration_seconds"].samples
    }
    assert services == {"memhive", "memhive-ingest"}


def test_with_no_child_answering_the_own_series_are_labelled() -> None:
    merged = merged_by_service("memhive", registry_of("memhive", "embed").collect(), {}).decode()
    [family] = [
        f for f in text_string_to_metric_families(merged) if f.name == "memhive_consumer_messages"
    ]
    assert [s.labels["service"] for s in family.samples] == ["memhive"]
