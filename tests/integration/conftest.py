"""Shared integration fixtures: one real nats-server (JetStream on a tmp dir) per session,
with memhive's bus users and permissions on, as `memhive run` starts it.

Tests isolate themselves with unique workspace ids and durable names, not fresh servers.
Adapter tests connect as the bus admin; the stack's services connect as themselves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from memhive_adapters.nats.connection import connect, ensure_streams
from memhive_adapters.nats.credentials import BusCredentials
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
from memhive_contracts.bus_permissions import ADMIN
from nats.aio.client import Client
from nats.js import JetStreamContext

from bench.running_stack import free_port  # noqa: F401 - the integration tests' import


def bus_user(auth: EmbeddedBusAuth, user: str) -> BusCredentials:
    return BusCredentials(user, nkey_seed=auth.seed(user))


@pytest.fixture(scope="session")
def bus_auth(tmp_path_factory: pytest.TempPathFactory) -> EmbeddedBusAuth:
    auth = EmbeddedBusAuth(tmp_path_factory.mktemp("bus"))
    auth.ensure()
    return auth


@pytest.fixture(scope="session")
def admin(bus_auth: EmbeddedBusAuth) -> BusCredentials:
    return bus_user(bus_auth, ADMIN)


@pytest.fixture(scope="session")
async def nats_server(
    tmp_path_factory: pytest.TempPathFactory, bus_auth: EmbeddedBusAuth
) -> AsyncIterator[EmbeddedNatsServer]:
    store = tmp_path_factory.mktemp("nats")
    server = EmbeddedNatsServer(store, port=free_port(), config_file=bus_auth.config_path)
    async with server:
        yield server


@pytest.fixture(scope="session")
def nats_url(nats_server: EmbeddedNatsServer) -> str:
    return nats_server.url


@pytest.fixture
def bus_env(nats_url: str, bus_auth: EmbeddedBusAuth, monkeypatch: pytest.MonkeyPatch) -> None:
    """For CLI commands run in process: the test server and its credentials."""
    monkeypatch.setenv("MEMHIVE_NATS__URL", nats_url)
    monkeypatch.setenv("MEMHIVE_NATS__CREDENTIALS_DIR", str(bus_auth.directory))


@pytest.fixture
async def nats_client(nats_url: str, admin: BusCredentials) -> AsyncIterator[Client]:
    client = await connect(nats_url, name="memhive-tests", timeout_s=5, credentials=admin)
    yield client
    await client.drain()


@pytest.fixture
async def js(nats_client: Client) -> JetStreamContext:
    """A JetStream context on a fresh connection, with every stream and bucket declared."""
    context = nats_client.jetstream()
    await ensure_streams(context)
    return context
