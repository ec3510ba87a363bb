"""What a client logs about its connection: losing the server is news, closing is not."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.credentials import BusCredentials
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer

from tests.integration.conftest import free_port


async def test_a_deliberate_close_is_not_logged_as_a_disconnect(
    nats_url: str, admin: BusCredentials, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memhive_adapters.nats.connection")
    for close in ("close", "drain"):
        client = await connect(nats_url, name=f"cli-{close}", timeout_s=5, credentials=admin)
        await getattr(client, close)()
    assert "disconnected" not in caplog.text


async def test_losing_the_server_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memhive_adapters.nats.connection")
    server = EmbeddedNatsServer(tmp_path, port=free_port())
    await server.start()
    client = await connect(server.url, name="left-behind", timeout_s=5)
    try:
        await server.stop()
        for _ in range(100):
            if "disconnected from NATS; reconnecting" in caplog.text:
                break
            await asyncio.sleep(0.05)
        assert "disconnected from NATS; reconnecting" in caplog.text
    finally:
        await client.close()
