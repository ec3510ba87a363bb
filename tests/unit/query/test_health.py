"""The health routes over a fake probe: what /readyz answers, and /metrics' lane sizes."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from memhive_query.routes import health

from tests.fakes import FakeHealthProbe


def client(probe: FakeHealthProbe) -> httpx.AsyncClient:
    app = FastAPI()
    app.state.health_probe = probe
    app.include_router(health.router)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://test")


async def test_ready_only_when_every_check_passes() -> None:
    probe = FakeHealthProbe({"nats": True, "lanes": True})
    async with client(probe) as http:
        ready = await http.get("/readyz")
        probe.checks["lanes"] = False
        unready = await http.get("/readyz")
    assert (ready.status_code, ready.json()) == (
        200,
        {"status": "ready", "nats": True, "lanes": True},
    )
    assert (unready.status_code, unready.json()["status"]) == (503, "unready")
    assert unready.json()["lanes"] is False


async def test_liveness_asks_the_probe_nothing() -> None:
    probe = FakeHealthProbe({"nats": False})
    async with client(probe) as http:
        live = await http.get("/healthz")
    assert (live.status_code, live.json()) == (200, {"status": "ok"})
    assert probe.lane_sizes_recorded == 0
