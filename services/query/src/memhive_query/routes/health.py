"""/healthz (the process is alive), /readyz (it can serve) and /metrics (Prometheus)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse
from memhive_adapters.runtime.infrastructure import Infrastructure
from memhive_adapters.runtime.probes import readiness, record_lane_sizes
from memhive_telemetry import PROMETHEUS_CONTENT_TYPE, installed_telemetry

router = APIRouter(tags=["health"])


def _infra(request: Request) -> Infrastructure:
    """The gateway and the background services' own listener both keep it in app.state."""
    return request.app.state.infra


InfraDep = Annotated[Infrastructure, Depends(_infra)]


@router.get("/healthz")
async def healthz() -> dict:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(infra: InfraDep) -> JSONResponse:
    checks = await readiness(infra)
    ready = all(checks.values())
    return JSONResponse(
        {"status": "ready" if ready else "unready", **checks}, status_code=200 if ready else 503
    )


@router.get("/metrics", include_in_schema=False)
async def prometheus_metrics(infra: InfraDep) -> Response:
    telemetry = installed_telemetry()
    if telemetry is None:
        return Response("telemetry is not installed in this process\n", status_code=503)
    await record_lane_sizes(infra)
    return Response(telemetry.prometheus_text(), media_type=PROMETHEUS_CONTENT_TYPE)
