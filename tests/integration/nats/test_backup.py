"""Backup and restore through the JetStream API: the same messages, records and consumer
positions on a fresh server."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhive_adapters.nats.backup import BackupError, backup, memhive_stream_names, restore
from memhive_adapters.nats.connection import connect, ensure_streams
from memhive_adapters.nats.credentials import BusCredentials
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
from memhive_contracts import streams

from tests.integration.conftest import free_port


async def test_backup_then_restore_on_a_fresh_server_gives_the_same_state(tmp_path: Path) -> None:
    async with EmbeddedNatsServer(tmp_path / "before", port=free_port()) as server:
        nc = await connect(server.url, name="backup-source", timeout_s=5)
        js = nc.jetstream()
        await ensure_streams(js)
        for n in range(300):  # several chunks' worth
            await js.publish(f"memhive.cmd.memory.save.ws{n % 3}", f"command {n} ".encode() * 50)
        kv = await js.key_value(streams.MEMORIES_BUCKET)
        await kv.put("ws0.m1", b"first")
        revision = await kv.put("ws0.m1", b"second")
        consumer = await js.pull_subscribe("memhive.cmd.>", durable="ingest-test")
        for msg in await consumer.fetch(10):
            await msg.ack()
        copies = await backup(nc, tmp_path / "backup")
        await nc.close()

    assert {c.name for c in copies} == set(memhive_stream_names())
    assert next(c for c in copies if c.name == streams.LOG_STREAM).messages == 300

    async with EmbeddedNatsServer(tmp_path / "after", port=free_port()) as server:
        nc = await connect(server.url, name="backup-target", timeout_s=5)
        js = nc.jetstream()
        await restore(nc, tmp_path / "backup")
        assert (await js.stream_info(streams.LOG_STREAM)).state.messages == 300
        third = await js.get_msg(streams.LOG_STREAM, seq=3)
        assert third.data == b"command 2 " * 50
        entry = await (await js.key_value(streams.MEMORIES_BUCKET)).get("ws0.m1")
        assert (entry.value, entry.revision) == (b"second", revision)
        position = await js.consumer_info(streams.LOG_STREAM, "ingest-test")
        assert position.ack_floor.stream_seq == 10
        with pytest.raises(BackupError, match="already exist"):
            await restore(nc, tmp_path / "backup")
        await restore(nc, tmp_path / "backup", replace=True)
        assert (await js.stream_info(streams.LOG_STREAM)).state.messages == 300
        await nc.close()


async def test_a_backup_goes_into_a_new_directory_only(
    tmp_path: Path, nats_url: str, admin: BusCredentials
) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "something").write_text("kept")
    nc = await connect(nats_url, name="backup-refused", timeout_s=5, credentials=admin)
    try:
        with pytest.raises(BackupError, match="not empty"):
            await backup(nc, tmp_path / "old")
        with pytest.raises(BackupError, match="no memhive backup"):
            await restore(nc, tmp_path / "nothing-here")
    finally:
        await nc.close()
    assert (tmp_path / "old" / "something").read_text() == "kept"
