from __future__ import annotations

import os
from pathlib import Path

import pytest
from memhive_adapters.nats.connection import connect, ensure_streams
from memhive_adapters.nats.embedded_server import (
    GO_MEMORY_LIMIT,
    PID_FILE,
    EmbeddedNatsServer,
    EmbeddedServerError,
)
from memhive_contracts import streams

from tests.integration.conftest import free_port
from tests.processes import environment_of


async def test_stream_and_kv_data_survive_a_restart(tmp_path: Path) -> None:
    server = EmbeddedNatsServer(tmp_path / "store", port=free_port())
    async with server:
        client = await connect(server.url, name="before-restart", timeout_s=5)
        js = client.jetstream()
        await ensure_streams(js)
        ack = await js.publish("memhive.evt.memory.saved.ws-restart", b"kept")
        kv = await js.key_value(streams.MEMORIES_BUCKET)
        revision = await kv.put("ws-restart.m1", b"record")
        await client.close()

    assert not server.running
    async with server:
        client = await connect(server.url, name="after-restart", timeout_s=5)
        js = client.jetstream()
        stored = await js.get_msg(streams.LOG_STREAM, seq=ack.seq)
        entry = await (await js.key_value(streams.MEMORIES_BUCKET)).get("ws-restart.m1")
        await client.close()

    assert stored.data == b"kept"
    assert (entry.value, entry.revision) == (b"record", revision)


async def test_a_busy_port_is_refused_with_a_clear_message(
    tmp_path: Path, nats_server: EmbeddedNatsServer
) -> None:
    second = EmbeddedNatsServer(tmp_path, port=nats_server.port)
    with pytest.raises(EmbeddedServerError, match=f"port {nats_server.port} .* busy"):
        await second.start()


async def test_a_missing_binary_is_reported(tmp_path: Path) -> None:
    server = EmbeddedNatsServer(tmp_path, port=free_port(), binary=tmp_path / "no-nats-server")
    with pytest.raises(EmbeddedServerError, match="does not exist"):
        await server.start()


async def test_connect_gives_up_after_its_timeout_when_nothing_listens() -> None:
    with pytest.raises(ConnectionError, match="could not reach NATS"):
        await connect(f"nats://127.0.0.1:{free_port()}", name="nobody-home", timeout_s=0.5)


@pytest.mark.parametrize(
    ("limit", "ours", "expected"),
    [
        (768 * 2**20, None, str(768 * 2**20)),  # the setting reaches Go's runtime
        (768 * 2**20, "3GiB", "3GiB"),  # an operator's own GOMEMLIMIT wins
        (0, None, None),  # off: Go's default
    ],
)
async def test_the_servers_heap_gets_the_soft_memory_limit_set(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    limit: int,
    ours: str | None,
    expected: str | None,
) -> None:
    if ours is None:
        monkeypatch.delenv(GO_MEMORY_LIMIT, raising=False)
    else:
        monkeypatch.setenv(GO_MEMORY_LIMIT, ours)
    server = EmbeddedNatsServer(tmp_path / "store", port=free_port(), memory_limit=limit)
    async with server:
        pid = int((server.store_dir / PID_FILE).read_text())
        environment = environment_of(pid)

    assert environment.get(GO_MEMORY_LIMIT) == expected
    assert environment["PATH"] == os.environ["PATH"]  # the rest is inherited
