"""/healthz (the process is alive), /readyz (it can serve) and /metrics (Prometheus).

Under `memhive run` the app also answers for the service processes it started
(`app.state.service_processes`): /readyz has a check per child, and /metrics carries the
children's series beside its own, every sample labelled `service`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse
from memhive_ports import HealthProbe, ServiceProcesses
from memhive_telemetry import PROMETHEUS_CONTENT_TYPE, installed_telemetry

router = APIRouter(tags=["health"])


async def _probe(request: Request) -> HealthProbe:
    """The gateway and the background services' own listener both put it in app.state."""
    return request.app.state.health_probe


ProbeDep = Annotated[HealthProbe, Depends(_probe)]


async def _children(request: Request) -> ServiceProcesses | None:
    return getattr(request.app.state, "service_processes", None)


ChildrenDep = Annotated[ServiceProcesses | None, Depends(_children)]


@router.get("/healthz")
async def healthz() -> dict:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(probe: ProbeDep, children: ChildrenDep) -> JSONResponse:
    checks = await probe.readiness()
    if children is not None:
        checks |= await children.readiness()
    ready = all(checks.values())
    return JSONResponse(
        {"status": "ready" if ready else "unready", **checks}, status_code=200 if ready else 503
    )


@router.get("/metrics", include_in_schema=False)
async def prometheus_metrics(probe: ProbeDep, children: ChildrenDep) -> Response:
    telemetry = installed_telemetry()
    if telemetry is None:
        return Response("telemetry is not installed in this process\n", status_code=503)
    await probe.record_lane_sizes()
    if children is None:
        text = telemetry.prometheus_text()
    else:
        text = telemetry.prometheus_text_with(await children.metrics())
    return Response(text, media_type=PROMETHEUS_CONTENT_TYPE)
