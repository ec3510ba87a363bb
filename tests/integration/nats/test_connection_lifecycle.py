"""What a client logs about its connection: losing the server is news, closing is not."""

from __future__ import annotations

import asyncio
import gc
import logging
from pathlib import Path

import pytest
from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.credentials import BusCredentials
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer

from tests.integration.conftest import free_port
from tests.waiting import until


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


async def test_a_drain_once_the_server_is_gone_closes_at_once(tmp_path: Path) -> None:
    server = EmbeddedNatsServer(tmp_path, port=free_port())
    await server.start()
    client = await connect(server.url, name="orphan", timeout_s=5)
    await server.stop()
    await until(lambda: client.is_reconnecting)
    await client.drain()  # nats-py's own refuses: it is reconnecting
    assert client.is_closed


async def test_a_drain_that_loses_its_server_midway_does_not_wait_out_its_timeout(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """What a service under `memhive run` saw when memhive was killed with -9: its drain
    was waiting on a handler when the embedded server died. nats-py waits 10 s, then fails."""
    server = EmbeddedNatsServer(tmp_path, port=free_port())
    await server.start()
    client = await connect(server.url, name="draining", timeout_s=5)
    handling, release = asyncio.Event(), asyncio.Event()

    async def slow_handler(_msg) -> None:
        handling.set()
        await release.wait()

    await client.subscribe("work", cb=slow_handler)
    await client.publish("work", b"x")
    await asyncio.wait_for(handling.wait(), 5)
    draining = asyncio.ensure_future(client.drain())
    try:
        await until(lambda: client.is_draining)
        await server.stop()
        # Not wait_for: nats-py's drain swallows a cancellation, and would seem to end.
        done, _ = await asyncio.wait({draining}, timeout=5)  # nats-py waits 10 s
        assert done, "the drain waited on a server that is gone"
        draining.result()
        assert client.is_closed
        gc.collect()  # a future whose exception nobody read is logged when collected
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    finally:
        release.set()
        draining.cancel()
        if not client.is_closed:
            await client.close()
