from __future__ import annotations

import random

from memhive_settings import TelemetrySettings
from memhive_telemetry import build_meter_provider, build_tracer_provider, meter
from opentelemetry import trace
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags


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


def test_the_otlp_exporter_initialises_for_metrics_and_traces() -> None:
    settings = TelemetrySettings(exporter="otlp", otlp_endpoint="http://127.0.0.1:9/")
    meters = build_meter_provider(settings)
    tracers = build_tracer_provider(settings)

    [reader] = meters._metric_readers
    assert reader._exporter._endpoint == "http://127.0.0.1:9/v1/metrics"
    [processor] = tracers._active_span_processor._span_processors
    assert processor.span_exporter._endpoint == "http://127.0.0.1:9/v1/traces"
    tracers.shutdown()
    meters.shutdown(timeout_millis=1)


def test_a_meter_without_a_provider_records_nothing_and_does_not_fail() -> None:
    meter("memhive.test").create_counter("memhive.test.things").add(1)


def _counted_in_a_sampled_span(settings: TelemetrySettings):
    """A counter's point, counted inside a sampled span context (as a save's are)."""
    reader = InMemoryMetricReader()
    provider = build_meter_provider(settings, [reader])
    sampled = SpanContext(7, 9, False, TraceFlags(TraceFlags.SAMPLED))
    before = random.getstate()
    with trace.use_span(NonRecordingSpan(sampled)):
        meter("memhive.test", provider).create_counter("memhive.test.things").add(1)
    moved = random.getstate() != before
    [resource] = reader.get_metrics_data().resource_metrics
    [point] = resource.scope_metrics[0].metrics[0].data.data_points
    provider.shutdown()  # unhurried: a console reader prints its last export
    return point, moved


def test_no_exemplar_is_sampled_when_no_span_is_exported(monkeypatch) -> None:
    """With no exporter an exemplar points at a trace nobody keeps; sampling one costs half
    a counter's time and moves the global `random` state (a test's hypothesis included)."""
    monkeypatch.delenv("OTEL_METRICS_EXEMPLAR_FILTER", raising=False)
    point, moved = _counted_in_a_sampled_span(TelemetrySettings())

    assert point.exemplars == []
    assert not moved


def test_exemplars_link_a_measurement_to_its_trace_when_spans_are_exported(monkeypatch) -> None:
    monkeypatch.delenv("OTEL_METRICS_EXEMPLAR_FILTER", raising=False)
    point, _ = _counted_in_a_sampled_span(TelemetrySettings(exporter="console"))

    [exemplar] = point.exemplars
    assert (exemplar.trace_id, exemplar.span_id) == (7, 9)


def test_the_exemplar_filter_of_the_environment_decides(monkeypatch) -> None:
    monkeypatch.setenv("OTEL_METRICS_EXEMPLAR_FILTER", "always_on")
    point, _ = _counted_in_a_sampled_span(TelemetrySettings())

    assert len(point.exemplars) == 1
