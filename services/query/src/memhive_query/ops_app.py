"""The HTTP listener of a background service (`memhive serve ingest` ...): only /healthz,
/readyz and /metrics, the same routes the gateway serves."""

from __future__ import annotations

from fastapi import FastAPI
from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_adapters.runtime.probes import InfrastructureProbe

from memhive_query.http_telemetry import http_telemetry
from memhive_query.routes import health


def create_ops_app(infra: Infrastructure, service: str) -> FastAPI:
    app = FastAPI(
        title=f"memhive {service}",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        telemetry=http_telemetry(),
    )
    app.state.health_probe = InfrastructureProbe(infra)
    app.include_router(health.router)
    return app
