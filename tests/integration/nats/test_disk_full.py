"""The embedded nats-server on a full tmpfs: its write error is noticed in its log, it is
restarted once there is room again, writes resume, and nothing it acknowledged is lost."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from memhive_adapters.free_space import FreeSpace
from memhive_adapters.nats.connection import connect, ensure_streams
from memhive_adapters.nats.embedded_auth import EMBEDDED_MAX_FILE_STORE
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
from memhive_adapters.nats.write_recovery import WriteRecovery
from memhive_contracts import streams, subjects
from memhive_ports import RetryLater

from tests.integration.conftest import free_port
from tests.tmpfs import MiB, empty, fill, small_tmpfs

SUBJECT = subjects.for_workspace(subjects.MEMORY_FORGOTTEN, "ws-full")


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    with small_tmpfs(tmp_path / "disk", 24) as mounted:
        yield mounted


async def _publish(js, payload: bytes) -> int | None:
    """The stream sequence, or None when the bus did not store it."""
    try:
        return (await js.publish(SUBJECT, payload)).seq
    except RetryLater:
        return None


@pytest.mark.timeout(120)
async def test_a_server_that_failed_a_write_for_lack_of_space_is_restarted_once_space_is_back(
    disk: Path, tmp_path: Path
) -> None:
    config = tmp_path / "limits.conf"  # as memhive run's: no JetStream limit of its own
    config.write_text(f"jetstream {{\n  max_file_store: {EMBEDDED_MAX_FILE_STORE}\n}}\n")
    server = EmbeddedNatsServer(disk / "nats", port=free_port(), config_file=config)
    async with server:
        nc = await connect(server.url, name="full-disk", timeout_s=5, request_timeout_s=1)
        js = nc.jetstream()
        await ensure_streams(js)
        acked = [seq for n in range(20) if (seq := await _publish(js, b"before %d" % n))]
        fill(disk)
        while (seq := await _publish(js, b"x" * 4096)) is not None:
            acked.append(seq)  # until the disk takes no more
        async with asyncio.timeout(10):
            await server.write_failed.wait()
        assert await _publish(js, b"still refused") is None

        empty(disk)
        recovery = WriteRecovery(server, FreeSpace(disk, 1 * MiB), poll_s=0.2)
        await recovery.start()
        try:
            async with asyncio.timeout(30):
                while (seq := await _publish(js, b"after")) is None:  # noqa: ASYNC110
                    await asyncio.sleep(0.2)
            acked.append(seq)
        finally:
            await recovery.stop()
        stored = [(await js.get_msg(streams.LOG_STREAM, seq=s)).seq for s in acked]
        assert stored == acked
        await nc.close()
