"""A nats-server stopped with SIGSTOP (an open connection that answers nothing): record reads,
JetStream API calls and publishes are BusUnavailable within one request timeout, then at
once while the bus stays stalled; readiness says so, and both recover after SIGCONT."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from memhive.v1 import events_pb2
from memhive_adapters.clock import SystemClock
from memhive_adapters.nats.bus_client import BusClient
from memhive_adapters.nats.connection import connect, ensure_streams
from memhive_adapters.nats.embedded_server import PID_FILE, EmbeddedNatsServer
from memhive_adapters.nats.kv_memory_store import KvMemoryStore
from memhive_adapters.nats.kv_token_directory import KvTokenDirectory
from memhive_adapters.nats.publisher import JetStreamPublisher
from memhive_adapters.nats.unavailable import BusStalled
from memhive_adapters.process_lifetime import read_pid
from memhive_contracts import subjects
from memhive_ports import BusUnavailable

from tests.integration.conftest import free_port
from tests.stalls import stopped

REQUEST_TIMEOUT_S = 1.0
# One request timeout, then the probe's deadline; the rest is a loaded machine's slack.
FIRST_ANSWER_WITHIN_S = 4.0


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[EmbeddedNatsServer]:
    async with EmbeddedNatsServer(tmp_path / "nats", port=free_port()) as running:
        yield running


@pytest.fixture
async def client(server: EmbeddedNatsServer) -> AsyncIterator[BusClient]:
    nc = await connect(server.url, name="stall-test", timeout_s=5,
                       request_timeout_s=REQUEST_TIMEOUT_S)  # fmt: skip
    await ensure_streams(nc.jetstream())
    yield nc
    await nc.close()


def _server_pid(server: EmbeddedNatsServer) -> int:
    pid = read_pid(server.store_dir / PID_FILE)
    assert pid is not None
    return pid


async def _calls(nc: BusClient):
    store = await KvMemoryStore.open(nc)
    tokens = await KvTokenDirectory.open(nc.jetstream(), SystemClock())
    publisher = JetStreamPublisher(nc.jetstream())
    subject = subjects.for_workspace(subjects.MEMORY_FORGOTTEN, "ws-stall")
    return {
        "record read": lambda: store.get("ws-stall", "m-1"),
        "record batch": lambda: store.get_many("ws-stall", ["m-1", "m-2"]),
        "token lookup": lambda: tokens.lookup("mh_0123456789abcdef_secret"),
        "publish": lambda: publisher.publish(subject, events_pb2.MemoryForgotten(), msg_id="x"),
    }


async def _seconds_to_fail(call) -> float:
    started = time.monotonic()
    with pytest.raises(BusUnavailable):
        await call()
    return time.monotonic() - started


@pytest.mark.timeout(60)
async def test_a_stalled_bus_is_unavailable_within_a_timeout_then_at_once(
    server: EmbeddedNatsServer, client: BusClient
) -> None:
    calls = await _calls(client)
    with stopped(_server_pid(server)):
        first = await asyncio.gather(*(_seconds_to_fail(c) for c in calls.values()))
        assert max(first) < FIRST_ANSWER_WITHIN_S, dict(zip(calls, first, strict=True))
        assert not await client.liveness.answering()
        for call in calls.values():  # known stalled: refused without waiting
            with pytest.raises(BusStalled):
                await asyncio.wait_for(call(), REQUEST_TIMEOUT_S / 2)
    await _answering_within(client, 5)
    assert await calls["record read"]() is None
    await calls["publish"]()


@pytest.mark.timeout(60)
async def test_readiness_flips_both_ways_with_no_other_traffic(
    server: EmbeddedNatsServer, client: BusClient
) -> None:
    assert await client.liveness.answering()
    with stopped(_server_pid(server)):
        async with asyncio.timeout(FIRST_ANSWER_WITHIN_S):
            while await client.liveness.answering():  # noqa: ASYNC110 - a probe each turn
                await asyncio.sleep(0.2)
    await _answering_within(client, 5)


async def _answering_within(client: BusClient, timeout_s: float) -> None:
    async with asyncio.timeout(timeout_s):
        while not await client.liveness.answering():  # noqa: ASYNC110 - a probe each turn
            await asyncio.sleep(0.1)
