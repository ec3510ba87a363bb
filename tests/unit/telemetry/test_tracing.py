from __future__ import annotations

import json
import logging
import random

from memhive_settings import TelemetrySettings
from memhive_telemetry import build_tracer_provider, extract_trace, inject_trace
from memhive_telemetry.logs import JsonLogFormatter
from opentelemetry import trace


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
