"""One running memhive stack for the whole test session: the real nats-server, ingest and
embed consuming from it, both embedded lanes, the real model, and the gateway app driven
in-process over ASGI. Tests isolate themselves by workspace (see `workspace`)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.runtime.infrastructure import Infrastructure, open_infrastructure
from memhive_adapters.runtime.service_group import ServiceGroup
from memhive_client import AsyncMemhiveClient
from memhive_contracts.bus_permissions import QUERY
from memhive_domain.principals import Principal, Role, member_or_viewer
from memhive_query.app import create_app
from memhive_settings import MemhiveSettings

from memhive_cli.services import BACKGROUND_SERVICES


@dataclass
class Stack:
    infra: Infrastructure  # the bus admin's (tests publish and read directly through it)
    app: object

    def client(self, token: str | None) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        transport = httpx.ASGITransport(app=self.app)
        return httpx.AsyncClient(transport=transport, base_url="http://memhive", headers=headers)

    async def token(self, workspace: str, *, member: bool = True, user: str = "agent") -> str:
        return await self.infra.tokens.issue(Principal(workspace, user, member_or_viewer(member)))


@pytest.fixture(scope="session")
async def gateway_url(stack: Stack) -> AsyncIterator[str]:
    """The stack's gateway over real HTTP on loopback (its lifespan already runs)."""
    async with served_on_loopback(stack.app) as url:
        yield url


@asynccontextmanager
async def served_on_loopback(app) -> AsyncIterator[str]:
    """An app over real HTTP on a free loopback port; its lifespan is the caller's."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        assert not task.done(), "uvicorn did not start"
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        await task


PURGE_AFTER_S = 4


@pytest.fixture(scope="session")
async def stack(
    nats_url: str, bus_auth: EmbeddedBusAuth, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Stack]:
    """As `memhive run` wires it: every service on the bus as its own user."""
    async with running_stack(nats_url, bus_auth, tmp_path_factory.mktemp("stack")) as running:
        yield running


@asynccontextmanager
async def running_stack(
    nats_url: str, bus_auth: EmbeddedBusAuth, data_dir: Path, query: dict | None = None
) -> AsyncIterator[Stack]:
    """`query`: query settings other than the defaults (e.g. the rerank option)."""
    nats = {"url": nats_url, "embedded": False, "credentials_dir": bus_auth.directory}
    # Expired memories are purged 4 s after their expiry here (30 days by default).
    ingest = {"expired_retention_days": PURGE_AFTER_S / 86400}
    settings = MemhiveSettings(data_dir=data_dir, nats=nats, ingest=ingest, query=query or {})
    infra = await open_infrastructure(settings, name="memhive-tests")
    services = {name: await infra.connect_as(name, name=name) for name in BACKGROUND_SERVICES}
    services[QUERY] = await infra.connect_as(QUERY, name=QUERY)
    group = ServiceGroup([await make(services[name]) for name, make in BACKGROUND_SERVICES.items()])
    await group.start()
    app = await create_app(services[QUERY])
    async with app_running(app):
        yield Stack(infra, app)
    await group.stop()
    for service in services.values():
        await service.close()
    await infra.close()


@asynccontextmanager
async def app_running(app) -> AsyncIterator[None]:
    """The app's lifespan, entered and left by one task: the MCP session manager's task
    group must be exited by the task that entered it."""
    started, stopping = asyncio.Event(), asyncio.Event()

    async def lifespan() -> None:
        async with app.router.lifespan_context(app):
            started.set()
            await stopping.wait()

    running = asyncio.create_task(lifespan())
    try:
        await asyncio.wait_for(started.wait(), 120)
        yield
    finally:
        stopping.set()
        await running


@dataclass
class Workspace:
    """A fresh workspace with a member's client and a read-only (non-member) client."""

    id: str
    member: httpx.AsyncClient
    reader: httpx.AsyncClient


@pytest.fixture
async def workspace(stack: Stack) -> AsyncIterator[Workspace]:
    workspace_id = f"ws-{uuid.uuid4().hex[:12]}"
    member = stack.client(await stack.token(workspace_id))
    reader = stack.client(await stack.token(workspace_id, member=False, user="guest"))
    async with member, reader:
        yield Workspace(workspace_id, member, reader)


@pytest.fixture
async def member_clients(stack: Stack) -> Callable[[], AsyncMemhiveClient]:
    """Python clients of a member of a fresh workspace, over the app itself (a factory: a
    LangGraph store makes one per event loop)."""
    token = await stack.infra.tokens.issue(
        Principal(f"ws-{uuid.uuid4().hex[:12]}", "graph", Role.MEMBER)
    )

    def client() -> AsyncMemhiveClient:
        return AsyncMemhiveClient("http://memhive", token, transport=httpx.ASGITransport(stack.app))

    return client


async def save(client: httpx.AsyncClient, **fields) -> dict:
    # Tests here save families of look-alike bodies on purpose: conflict detection
    # (tests/integration/stack/test_edges_and_conflicts.py) must not refuse them.
    fields.setdefault("force", True)
    response = await client.post("/v1/memories?wait=indexed", json=fields)
    assert response.status_code == 201, response.text
    assert response.json()["status"] == "indexed"
    return response.json()


async def recall_ids(client: httpx.AsyncClient, query: str, **fields) -> list[str]:
    response = await client.post("/v1/recall", json={"query": query, **fields})
    assert response.status_code == 200, response.text
    return [r["id"] for r in response.json()["results"]]
