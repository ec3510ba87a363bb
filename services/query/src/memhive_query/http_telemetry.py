"""FastAPI's own OpenTelemetry instrumentation, configured for memhive: a server span per
request (the root of a save's trace; an incoming `traceparent` is honoured) and the
`http.server.request.duration` histogram by route, which is recall's latency
(`http_route="/v1/recall"`) and counts saves (`http_route="/v1/memories"`, POST).
Probes and scrapes are left out: they would drown the traces of real work."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from fastapi.telemetry import TelemetryConfig

UNOBSERVED = frozenset({"/healthz", "/readyz", "/metrics"})


def _unobserved(scope: MutableMapping[str, Any]) -> bool:
    return scope.get("path") in UNOBSERVED


def http_telemetry() -> TelemetryConfig:
    # No operation spans (dependency resolution, serialisation): one span per request.
    return TelemetryConfig(exclude=_unobserved, operation_spans=False, auto_configure=False)
