"""Shared integration fixtures: one real nats-server (JetStream on a tmp dir) per session.

Tests isolate themselves with unique workspace ids and durable names, not fresh servers.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import pytest
from memhive_adapters.nats.connection import connect, ensure_streams
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
from nats.aio.client import Client
from nats.js import JetStreamContext


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
async def nats_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[EmbeddedNatsServer]:
    server = EmbeddedNatsServer(tmp_path_factory.mktemp("nats"), port=free_port())
    async with server:
        yield server


@pytest.fixture(scope="session")
def nats_url(nats_server: EmbeddedNatsServer) -> str:
    return nats_server.url


@pytest.fixture
async def nats_client(nats_url: str) -> AsyncIterator[Client]:
    client = await connect(nats_url, name="memhive-tests", timeout_s=5)
    yield client
    await client.drain()


@pytest.fixture
async def js(nats_client: Client) -> JetStreamContext:
    """A JetStream context on a fresh connection, with every stream and bucket declared."""
    context = nats_client.jetstream()
    await ensure_streams(context)
    return context
