"""The embedded nats-server's life is memhive's: it dies with its parent, even on kill -9;
one left behind by an older crash is reclaimed on start; a store dir has one owner."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memhive_adapters.nats.connection import connect
from memhive_adapters.nats.embedded_server import (
    PID_FILE,
    EmbeddedNatsServer,
    EmbeddedServerError,
    find_nats_server,
)
from memhive_adapters.process_lifetime import command_line

from tests.integration.conftest import free_port

PARENT = """
import asyncio, sys
from pathlib import Path
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer

async def main():
    server = EmbeddedNatsServer(Path(sys.argv[1]), port=int(sys.argv[2]))
    await server.start()
    print(server._process.pid, flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while command_line(pid) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _spawn(argv: list[str], **options) -> subprocess.Popen:
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **options)


def _orphan_server(store: Path, port: int) -> subprocess.Popen:
    """A nats-server as a crashed memhive leaves it: its own session, no parent to die with."""
    argv = [str(find_nats_server()), "-js", "-sd", str(store), "-a", "127.0.0.1", "-p", str(port)]
    return _spawn(argv, start_new_session=True)


def test_the_server_dies_when_its_parent_is_killed_with_sigkill(tmp_path: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(tmp_path / "store"), str(free_port())],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        child = int(parent.stdout.readline())
        assert command_line(child) is not None
        parent.kill()
        parent.wait(timeout=10)
        assert _gone_within(child, 10), "nats-server outlived memhive"
    finally:
        parent.kill()
        parent.stdout.close()


async def test_a_server_left_by_a_crash_is_reclaimed_on_start(tmp_path: Path) -> None:
    store, port = (tmp_path / "store").absolute(), free_port()
    store.mkdir()
    orphan = _orphan_server(store, port)
    (store / PID_FILE).write_text(f"{orphan.pid}\n")
    client = await connect(f"nats://127.0.0.1:{port}", name="orphan-up", timeout_s=10)
    await client.close()

    async with EmbeddedNatsServer(store, port=port) as server:
        assert orphan.wait(timeout=10) is not None  # ended (SIGTERM), so the port is ours
        assert (store / PID_FILE).read_text().strip() == str(server._process.pid)
        client = await connect(server.url, name="after-reclaim", timeout_s=5)
        await client.close()
    assert not (store / PID_FILE).exists()


async def test_a_pid_file_naming_another_process_is_never_signalled(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    bystander = _spawn(["sleep", "60"])
    try:
        (store / PID_FILE).write_text(f"{bystander.pid}\n")
        async with EmbeddedNatsServer(store, port=free_port()):
            assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


async def test_a_second_server_on_the_same_store_dir_is_refused(tmp_path: Path) -> None:
    async with EmbeddedNatsServer(tmp_path, port=free_port()) as first:
        second = EmbeddedNatsServer(tmp_path, port=free_port())
        with pytest.raises(EmbeddedServerError, match=f"{tmp_path} is in use .*pid {os.getpid()}"):
            await second.start()
        await second.stop()  # never started: must leave the first one's files alone
        assert (tmp_path / PID_FILE).read_text().strip() == str(first._process.pid)
        client = await connect(first.url, name="still-up", timeout_s=5)
        await client.close()


async def test_a_terminal_ctrl_c_reaches_memhive_only(tmp_path: Path) -> None:
    """A terminal signals its foreground process group: the server must not be in it, or
    it dies under the consumers still draining (ConnectionReconnectingError at Ctrl-C)."""
    async with EmbeddedNatsServer(tmp_path, port=free_port()) as server:
        child = server._process.pid
        assert os.getpgid(child) != os.getpgrp()
        assert os.getsid(child) != os.getsid(0)
