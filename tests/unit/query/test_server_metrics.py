"""ServerMetrics declares FastAPI's request instruments exactly as FastAPI does: the SDK then
hands both the same instruments, and a save answered before FastAPI lands in FastAPI's series.
If FastAPI changes its declaration, this fails (rather than two series, or a conflict logged
at the first request)."""

from __future__ import annotations

import logging

import pytest
from fastapi.telemetry._asgi import NativeTelemetry  # FastAPI's own, to compare with
from memhive_query.http_telemetry import ServerMetrics
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader


@pytest.mark.parametrize("fastapi_first", [True, False])
def test_the_instruments_are_fastapis_own(
    fastapi_first: bool, caplog: pytest.LogCaptureFixture
) -> None:
    provider = MeterProvider()
    fastapis = NativeTelemetry({"meter_provider": provider})  # type: ignore[typeddict-item]
    ours = ServerMetrics(provider)
    with caplog.at_level(logging.WARNING):
        if fastapi_first:
            theirs, mine = fastapis._instruments(), ours._instruments()
        else:
            mine, theirs = ours._instruments(), fastapis._instruments()
    assert mine[0] is theirs[0] and mine[1] is theirs[1]
    assert not [r for r in caplog.records if r.name.startswith("opentelemetry")]


def test_a_request_is_counted_in_and_out_with_fastapis_attributes() -> None:
    reader = InMemoryMetricReader()
    metrics = ServerMetrics(MeterProvider(metric_readers=[reader]))
    scope = {"type": "http", "method": "POST", "scheme": "http", "http_version": "1.1"}
    finish = metrics.begin(scope)
    finish("/v1/memories", 202, None)
    metrics.begin(scope)("/v1/memories", None, RuntimeError("Incomplete ASGI response"))
    points = {
        m.name: m.data.data_points
        for r in reader.get_metrics_data().resource_metrics
        for s in r.scope_metrics
        for m in s.metrics
    }
    [active] = points["http.server.active_requests"]
    assert active.value == 0
    assert dict(active.attributes) == {"url.scheme": "http", "http.request.method": "POST"}
    durations = {
        p.attributes.get("http.response.status_code"): p
        for p in points["http.server.request.duration"]
    }
    assert dict(durations[202].attributes) == {
        "url.scheme": "http",
        "http.request.method": "POST",
        "network.protocol.version": "1.1",
        "http.route": "/v1/memories",
        "http.response.status_code": 202,
    }
    assert durations[None].attributes["error.type"] == "RuntimeError"
