"""FastAPI's own OpenTelemetry instrumentation, configured for memhive: a server span per
request (the root of a save's trace; an incoming `traceparent` is honoured) and the
`http.server.request.duration` histogram by route, which is recall's latency
(`http_route="/v1/recall"`) and counts saves (`http_route="/v1/memories"`, POST).
Probes and scrapes are left out: they would drown the traces of real work. A save answered
before FastAPI (direct_saves.py) records the same metrics through `ServerMetrics`."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from time import perf_counter
from typing import Any

import fastapi
from fastapi.telemetry import TelemetryConfig
from opentelemetry import metrics
from opentelemetry.metrics import Histogram, UpDownCounter

UNOBSERVED = frozenset({"/healthz", "/readyz", "/metrics"})


def _unobserved(scope: MutableMapping[str, Any]) -> bool:
    return scope.get("path") in UNOBSERVED


def http_telemetry() -> TelemetryConfig:
    # No operation spans (dependency resolution, serialisation): one span per request.
    return TelemetryConfig(exclude=_unobserved, operation_spans=False, auto_configure=False)


# FastAPI's request instruments, declared as FastAPI declares them (fastapi/telemetry/_asgi.py):
# the SDK hands back the very same instruments for the same declaration, so a request answered
# before FastAPI (direct_saves.py) lands in the same series as the others.
_SCHEMA_URL = "https://opentelemetry.io/schemas/1.44.0"
_DURATION_BUCKETS = (
    0.005,
    0.01,
    0.025,
    0.05,
    0.075,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
)

Finish = Callable[[str, int | None, BaseException | None], None]


class ServerMetrics:
    """`http.server.request.duration` and `http.server.active_requests` of a request FastAPI
    does not see, with the attributes FastAPI gives them."""

    def __init__(self, provider: metrics.MeterProvider | None = None) -> None:
        """`provider`: the process's, unless given (a test's)."""
        self._given = provider
        self._provider: metrics.MeterProvider | None = None
        self._duration: Histogram | None = None
        self._active: UpDownCounter | None = None

    def begin(self, scope: MutableMapping[str, Any]) -> Finish:
        """Counts the request in; returns what counts it out: `finish(route, status, error)`."""
        duration, active = self._instruments()
        attributes: dict[str, Any] = {
            "url.scheme": scope.get("scheme", "http"),
            "http.request.method": scope["method"],
        }
        active_attributes = dict(attributes)
        if scope.get("http_version"):
            attributes["network.protocol.version"] = scope["http_version"]
        active.add(1, active_attributes)
        started = perf_counter()

        def finish(route: str, status: int | None, error: BaseException | None) -> None:
            attributes["http.route"] = route
            if status is not None:
                attributes["http.response.status_code"] = status
            if error is not None or status is None or status >= 500:
                attributes["error.type"] = (
                    _exception_type(error) if error else str(status or "incomplete_response")
                )
            duration.record(max(0.0, perf_counter() - started), attributes)
            active.add(-1, active_attributes)

        return finish

    def _instruments(self) -> tuple[Histogram, UpDownCounter]:
        provider = self._given or metrics.get_meter_provider()
        if provider is not self._provider or self._duration is None or self._active is None:
            meter = provider.get_meter("fastapi", fastapi.__version__, schema_url=_SCHEMA_URL)
            self._duration = meter.create_histogram(
                "http.server.request.duration",
                unit="s",
                description="Duration of HTTP server requests.",
                explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
            )
            self._active = meter.create_up_down_counter(
                "http.server.active_requests",
                unit="{request}",
                description="Number of active HTTP server requests.",
            )
            self._provider = provider
        return self._duration, self._active


def _exception_type(exc: BaseException) -> str:
    cls = type(exc)
    return (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )
