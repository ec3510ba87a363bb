from __future__ import annotations

import json
import logging
import random

import pytest
from memhive_settings import TelemetrySettings
from memhive_telemetry import build_tracer_provider, extract_trace, inject_trace
from memhive_telemetry.logs import JsonLogFormatter
from memhive_telemetry.propagation import causes_of, span_caused_by, spans_recorded
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def test_the_trace_context_survives_a_round_trip_through_message_headers() -> None:
    tracer = build_tracer_provider(TelemetrySettings()).get_tracer("test")
    with tracer.start_as_current_span("save") as span:
        headers = inject_trace({"Nats-Msg-Id": "c1"})

    remote = trace.get_current_span(extract_trace(headers)).get_span_context()
    assert headers["Nats-Msg-Id"] == "c1"
    assert headers["traceparent"].startswith("00-")
    assert (remote.trace_id, remote.span_id) == (
        span.get_span_context().trace_id,
        span.get_span_context().span_id,
    )
    assert remote.is_remote


def test_outside_any_span_nothing_is_injected_and_nothing_extracted() -> None:
    assert inject_trace({}) == {}
    assert not trace.get_current_span(extract_trace(None)).get_span_context().is_valid


def test_a_json_log_line_carries_the_trace_id_of_the_current_span() -> None:
    tracer = build_tracer_provider(TelemetrySettings()).get_tracer("test")
    record = logging.LogRecord("memhive.x", logging.WARNING, __file__, 1, "saved %s", ("m1",), None)
    with tracer.start_as_current_span("save") as span:
        line = json.loads(JsonLogFormatter().format(record))

    assert line["message"] == "saved m1"
    assert line["level"] == "WARNING"
    assert line["trace_id"] == format(span.get_span_context().trace_id, "032x")
    assert "trace_id" not in json.loads(JsonLogFormatter().format(record))


def test_spans_leave_the_global_random_state_alone() -> None:
    tracer = build_tracer_provider(TelemetrySettings()).get_tracer("test")
    before = random.getstate()
    ids = set()
    for _ in range(50):
        with tracer.start_as_current_span("work") as span:
            ids.add((span.get_span_context().trace_id, span.get_span_context().span_id))

    assert random.getstate() == before
    assert len(ids) == 50 and all(t and s for t, s in ids)


def test_log_lines_name_their_service_in_text_and_in_json() -> None:
    from memhive_telemetry.logs import text_log_formatter

    record = logging.LogRecord("memhive.x", logging.ERROR, __file__, 1, "dead-lettered", (), None)
    assert " ERROR [memhive-ingest] memhive.x: dead-lettered" in text_log_formatter(
        "memhive-ingest"
    ).format(record)
    assert json.loads(JsonLogFormatter("memhive-ingest").format(record))["service"] == (
        "memhive-ingest"
    )


TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CAUSE = {"traceparent": f"00-{TRACE_ID}-00f067aa0ba902b7-01", "tracestate": "vendor=x"}
OTHER = {"traceparent": f"00-{'1' * 32}-{'2' * 16}-01"}


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> TracerProvider:
    """The process's provider as `memhive run` installs it with no exporter."""
    installed = build_tracer_provider(TelemetrySettings())
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: installed)
    return installed


def test_with_nothing_exporting_work_for_a_message_is_not_recorded_but_stays_in_its_trace(
    provider: TracerProvider,
) -> None:
    record = logging.LogRecord("memhive.x", logging.WARNING, __file__, 1, "handled", (), None)
    assert not spans_recorded()
    causes = causes_of([None, CAUSE, OTHER])
    with span_caused_by("embed process", causes, source="test"):
        current = trace.get_current_span()
        passed_on = extract_trace(inject_trace({}))
        line = json.loads(JsonLogFormatter().format(record))

    assert not current.is_recording()
    child, cause = current.get_span_context(), causes[0]
    assert [c.trace_id for c in causes] == [int(TRACE_ID, 16)]  # the others are not read
    assert (child.trace_id, child.trace_flags, child.trace_state) == (
        cause.trace_id,
        cause.trace_flags,
        cause.trace_state,
    )
    assert child.span_id not in (cause.span_id, 0) and not child.is_remote
    assert trace.get_current_span(passed_on).get_span_context().span_id == child.span_id
    assert line["trace_id"] == TRACE_ID


def test_with_nothing_exporting_work_without_a_cause_starts_a_sampled_trace(
    provider: TracerProvider,
) -> None:
    with span_caused_by("bulletin refresh", causes_of([None]), source="test"):
        started = trace.get_current_span().get_span_context()

    assert started.is_valid and started.trace_flags.sampled


def test_a_processor_added_later_records_the_span_its_parent_and_its_links(
    provider: TracerProvider,
) -> None:
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    assert spans_recorded()
    # A source of its own: tracers are kept per source, from the provider of the first call.
    source = "test.recorded"
    with span_caused_by("embed process", causes_of([CAUSE, None, OTHER]), source=source):
        pass

    [span] = exporter.get_finished_spans()
    assert (
        span.parent.trace_id == int(TRACE_ID, 16) and span.context.trace_id == span.parent.trace_id
    )
    assert [link.context.trace_id for link in span.links] == [int("1" * 32, 16)]
