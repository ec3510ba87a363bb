"""The health routes over a fake probe: what /readyz answers, and /metrics' lane sizes."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from memhive_query.routes import health

from tests.fakes import FakeHealthProbe


class FakeChildren:
    """ServiceProcesses: the children `memhive run` started, as their probes answer."""

    def __init__(self, ready: dict[str, bool]) -> None:
        self.ready = ready

    async def readiness(self) -> dict[str, bool]:
        return dict(self.ready)

    async def metrics(self) -> dict[str, bytes]:
        return {}


def client(probe: FakeHealthProbe, children: FakeChildren | None = None) -> httpx.AsyncClient:
    app = FastAPI()
    app.state.health_probe = probe
    app.state.service_processes = children
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


async def test_under_memhive_run_each_child_service_is_a_readiness_check() -> None:
    children = FakeChildren({"ingest": True})
    async with client(FakeHealthProbe({"nats": True}), children) as http:
        ready = await http.get("/readyz")
        children.ready["ingest"] = False  # it died, or is starting again
        unready = await http.get("/readyz")
    assert (ready.status_code, ready.json()) == (
        200,
        {"status": "ready", "nats": True, "ingest": True},
    )
    assert (unready.status_code, unready.json()["ingest"]) == (503, False)
