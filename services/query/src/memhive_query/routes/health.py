"""/healthz: ready when the bus is reachable (every write goes through it)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from memhive_query.routes.dependencies import GatewayDep

router = APIRouter(tags=["health"])


@router.get("/healthz", responses={503: {"description": "degraded: the bus is unreachable"}})
async def healthz(gw: GatewayDep) -> JSONResponse:
    connected = gw.infra.nats.is_connected
    status = {"status": "ok" if connected else "degraded", "nats": connected}
    return JSONResponse(status, status_code=200 if connected else 503)
