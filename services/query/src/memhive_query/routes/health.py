"""/healthz (the process is alive), /readyz (it can serve) and /metrics (Prometheus)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse
from memhive_ports import HealthProbe
from memhive_telemetry import PROMETHEUS_CONTENT_TYPE, installed_telemetry

router = APIRouter(tags=["health"])


async def _probe(request: Request) -> HealthProbe:
    """The gateway and the background services' own listener both put it in app.state."""
    return request.app.state.health_probe


ProbeDep = Annotated[HealthProbe, Depends(_probe)]


@router.get("/healthz")
async def healthz() -> dict:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(probe: ProbeDep) -> JSONResponse:
    checks = await probe.readiness()
    ready = all(checks.values())
    return JSONResponse(
        {"status": "ready" if ready else "unready", **checks}, status_code=200 if ready else 503
    )


@router.get("/metrics", include_in_schema=False)
async def prometheus_metrics(probe: ProbeDep) -> Response:
    telemetry = installed_telemetry()
    if telemetry is None:
        return Response("telemetry is not installed in this process\n", status_code=503)
    await probe.record_lane_sizes()
    return Response(telemetry.prometheus_text(), media_type=PROMETHEUS_CONTENT_TYPE)
